// The JSON the console reads and sends: the server's wire types (src/http/wire/, derived
// from the schemas the routes are registered with and the OpenAPI document is generated
// from; docs/architecture.md, "Wire types"), imported as types only, so nothing of the
// server is bundled. What is the console's own is below them.
import type { HealthDetail, QueryErrorBody } from '../../../src/http/wire/index.js'

export type {
  Access, CollectionEntry, CollectionIR, CorruptionReport, DefaultIR, DiffCollection, DiffResult, FieldIR, FieldType, Health, HealthDetail,
  IndexIR, IssuedToken, IssueTokenRequest, OpResult, PageSlots, Plan, QueryIR, QueryResult, Replication, Row, SchemaIR, SchemaStatus,
  SnapshotEntry, Stats, TailChange, TailEvent, TailPage, TenantEntry, TenantLimitsBody, TenantOp, TenantUsageBody, TokenEntry, TokenScope, Trends, Value,
} from '../../../src/http/wire/index.js'

/**
 * An error answer as the console holds it: the server's error body (every route's is a
 * QueryError's subset), or for an answer that is none (a proxy's page) the code
 * `http_<status>`.
 */
export type ErrorBody = Omit<QueryErrorBody, 'code' | 'conflict'> & { code: QueryErrorBody['code'] | `http_${number}`; conflict?: boolean }

/** A bucket of the fsync latency histogram of /health/detail. */
export type FsyncBucket = HealthDetail['fsync']['buckets'][number]
