// The client of a tenantdb server (docs/client.md): fetch and WebSocket only, so it runs
// in Node 20+, browsers and edge runtimes. `connect({path})` opens a database in this
// process through the same interface, loaded only then (Node only).
export { connect, type ConnectOptions, type EmbeddedOptions, type RemoteOptions } from './connect.js'
export { answeredError, TenantdbError, unansweredError, type ClientErrorCode, type UnansweredCode } from './errors.js'
export type { FetchFunction } from './transport.js'
export { tailEvents, type TailEvent, type TailOptions, type TailStatus, type WebSocketConstructor } from './tail.js'
export type { BackoffOptions } from './backoff.js'
export type {
  Access, BackupStream, CallOptions, Client, ClientStatement, ClientTenant, ClientTransaction, CollectionEntry, ConnectedTenant, DiffRequest, DiffResult, Health,
  HealthDetail, IssuedToken, IssueTokenRequest, OpRequest, OpResult, Params, QueryOptions, QueryResult, Row, SchemaStatus, SnapshotEntry, Stats,
  TenantEntry, TenantUsageBody, TokenEntry, Trends, TrendsOptions, Value,
} from './types.js'
