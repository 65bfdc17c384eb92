// The wire types (docs/architecture.md, "Wire types"): the JSON bodies of the HTTP API
// as schemas written once, `as const`, with their TypeScript types derived from them
// (from-schema.ts). The routes are registered with these schemas (the OpenAPI document
// is generated from them) and the console imports the types. Browser-safe: nothing
// here imports Node, fastify or the database, only import-free modules of src/.
export { ref, type FromSchema } from './from-schema.js'
export { error_statuses, type ErrorCode } from './error-codes.js'
export { error_schema, query_error_schema, type ErrorBody, type QueryErrorBody } from './errors.js'
export { row_schema, value_schema, type Row, type Value } from './values.js'
export {
  health_body, health_detail_body, pages_schema, stats_body, trends_body,
  type CorruptionReport, type Health, type HealthDetail, type PageSlots, type Replication, type Stats, type Trends,
} from './health.js'
export {
  collections_body, diff_body, op_body, op_result_schema, schema_ir_schema, schema_status_body, snapshots_body, tenants_body,
  type CollectionEntry, type DiffCollection, type DiffResult, type OpResult, type SchemaStatus, type SnapshotEntry, type TenantEntry, type TenantOp,
} from './tenants.js'
export {
  isolation_detail_schema, limits_schema, refusals_schema, tenant_usage_body,
  type IsolationDetail, type TenantLimitsBody, type TenantUsageBody,
} from './usage.js'
export { plan_schema, query_result_body, type Plan, type QueryResult } from './query.js'
export { tail_event_schema, tail_page_body, type TailChange, type TailEvent, type TailPage } from './tail.js'
export {
  access_body, issue_token_body, issued_token_body, token_scopes, tokens_body,
  type Access, type IssuedToken, type IssueTokenRequest, type TokenEntry, type TokenScope,
} from './access.js'
export type { CollectionIR, DefaultIR, FieldIR, FieldType, IndexIR, QueryIR, SchemaIR } from '../../schema/ir.js'
