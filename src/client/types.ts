// The one interface of the client (docs/client.md, "Calls"): a Client for the whole
// server and a ClientTenant for one tenant, the same whether they talk to a server over
// HTTP or to a database opened in this process. Only wire types (docs/api.md's JSON
// bodies), so a browser build needs nothing else.
import type {
  Access, CollectionEntry, DiffResult, Health, HealthDetail, IssuedToken, IssueTokenRequest, OpResult, QueryResult, Row, SchemaStatus, SnapshotEntry,
  Stats, TenantEntry, TenantUsageBody, TokenEntry, Trends, Value,
} from '../http/wire/index.js'
import type { TailEvent, TailOptions } from './tail.js'

export type {
  Access, CollectionEntry, DiffResult, Health, HealthDetail, IssuedToken, IssueTokenRequest, OpResult, QueryResult, Row, SchemaStatus, SnapshotEntry,
  Stats, TenantEntry, TenantUsageBody, TokenEntry, Trends, Value,
}

/** An online backup of the whole database (docs/operations.md, "Backup and restore"): a tar archive of `bytes` bytes holding every commit up to `lsn`. Cancelling the body ends the backup. */
export interface BackupStream {
  lsn: number
  bytes: number
  body: ReadableStream<Uint8Array>
}

/** The named parameters of a statement (`$name` in its text). */
export type Params = Record<string, Value>

/** Every call takes the caller's signal: aborting it fails the call with `aborted`. */
export interface CallOptions {
  signal?: AbortSignal
}

export interface QueryOptions extends CallOptions {
  /** Read this named snapshot of the tenant instead of its head (the `Service-Snapshot` header); writes fail with `readonly_snapshot`. */
  snapshot?: string
}

/** A tenant operation (docs/api.md, "Operations"): `create`, `fork`, `snapshot`, `restore`, `suspend`, `resume`, `delete`, `compact`, `limit`. */
export interface OpRequest {
  op: string
  /** The tenant (or `tenant@snapshot`); a tenant's own `ops` defaults it to that tenant. */
  name?: string
  target?: string
  limits?: Record<string, number | null>
}

export interface TrendsOptions extends CallOptions {
  /** Only the samples after this time (Unix seconds). */
  after?: number
}

export interface DiffRequest extends CallOptions {
  /** A snapshot of this tenant, or `tenant@snapshot` of another. */
  from: string
  /** A snapshot name, or `head` (the default). */
  to?: string
  collection?: string
  limit?: number
}

/** A statement prepared once and run again and again with other parameters. */
export interface ClientStatement {
  readonly text: string
  /** Runs the statement as `query` does: any statement, the same result. */
  run(params?: Params, options?: CallOptions): Promise<QueryResult>
  /** The first row as an object (`{column: value}`), or undefined. */
  get(params?: Params, options?: CallOptions): Promise<Row | undefined>
  /** Every row as objects; more rows than one answer holds fails with `not_allowed_here`, never a silent cut. */
  all(params?: Params, options?: CallOptions): Promise<Row[]>
}

/** The statements a transaction function runs, on the transaction's one snapshot. */
export interface ClientTransaction {
  query(text: string, params?: Params): Promise<QueryResult>
}

export interface ClientTenant {
  readonly name: string
  /** One pipeline or atomic block (an atomic block is query text: `atomic { … }`). */
  query(text: string, params?: Params, options?: QueryOptions): Promise<QueryResult>
  prepare(text: string, options?: CallOptions): Promise<ClientStatement>
  /** Application code around statements on one snapshot: the embedded database only; a server refuses it with `not_allowed_here` (use an atomic block). */
  transaction<T>(fn: (tx: ClientTransaction) => Promise<T>, options?: { retries?: number }): Promise<T>
  /** A tenant operation; `name` defaults to this tenant (`compact` always works on it). */
  ops(request: OpRequest, options?: CallOptions): Promise<OpResult>
  diff(request: DiffRequest): Promise<DiffResult>
  snapshots(options?: CallOptions): Promise<{ tenant: string; snapshots: SnapshotEntry[] }>
  collections(options?: CallOptions): Promise<{ tenant: string; collections: CollectionEntry[] }>
  schema(options?: CallOptions): Promise<SchemaStatus>
  usage(options?: CallOptions): Promise<TenantUsageBody>
  /**
   * The change feed (docs/client.md, "The change feed"): the events after `after`, then
   * live ones, each once, in LSN order, across reconnects.
   */
  tail(options?: TenantTailOptions): AsyncIterableIterator<TailEvent>
  /** The tenant's tokens (docs/api.md, "Tenant tokens"): the service token only. */
  tokens(options?: CallOptions): Promise<{ tenant: string; tokens: TokenEntry[] }>
  /** A new token of this tenant; its secret is in this answer only. */
  issueToken(request: IssueTokenRequest, options?: CallOptions): Promise<IssuedToken>
  revokeToken(id: string, options?: CallOptions): Promise<OpResult>
}

/** A tenant's feed: where to start, which collections, and (over HTTP) how to connect. */
export type TenantTailOptions = Omit<TailOptions, 'urls' | 'token' | 'tenant' | 'fetch'>

export interface Client {
  /** A handle on one tenant; nothing is asked of the server until it is used. */
  tenant(name: string): ClientTenant
  tenants(options?: CallOptions): Promise<{ tenants: TenantEntry[] }>
  health(options?: CallOptions): Promise<Health>
  healthDetail(options?: CallOptions): Promise<HealthDetail>
  stats(options?: CallOptions): Promise<Stats>
  /** The schema source the server was started with (`GET /api/v1/schema.eel`): each file after a `# file: NAME` line; empty without schema files. */
  schemaSource(options?: CallOptions): Promise<string>
  /** An online backup (`GET /api/v1/backup`, the service token only), streamed: `timeout_ms` bounds the wait for it to start, not its transfer. */
  backup(options?: CallOptions): Promise<BackupStream>
  /** What the token opens: everything (the service token), or a tenant token's scope and tenants. */
  access(options?: CallOptions): Promise<Access>
  /** The server's one-second samples (docs/api.md, "Trends"); a database in this process keeps none. */
  trends(options?: TrendsOptions): Promise<Trends>
  /** A tenant operation on the tenant its `name` names. */
  ops(request: OpRequest, options?: CallOptions): Promise<OpResult>
  /** Ends the client: an embedded database is closed; a remote client sends nothing more. */
  close(): Promise<void>
}

/** What `connect({tenant})` returns: that tenant's calls, plus `close()` and the client it came from. */
export interface ConnectedTenant extends ClientTenant {
  readonly client: Client
  close(): Promise<void>
}
