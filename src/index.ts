// The public surface of the tenantdb package: the embedding API (docs/api.md, "Embedding API").
export { Database, Tenant, type BlockedMigration, type OpenOptions, type DiffRequest, type DiffResult, type TenantQueryOptions } from './database/index.js'
export { EelError, formatDiagnostic, type Diagnostic } from './lang/diagnostic.js'
export { QueryError, type QueryErrorCode, type QueryResult, type PlanHint } from './query/index.js'
export { TenantError, type TenantErrorCode, type TenantOpRequest, type OpResult, type TenantRecord } from './tenants/index.js'
export { LsnExpiredError, TailRequestError, type TailEvent, type TailPage, type TailChange } from './cdc/index.js'
export { EngineError, type EngineErrorCode, type CommitObserver, type CommitOutcome, type CommitSettled, type CommitKind } from './database/index.js'
export { buildServer, type ServerOptions, type SchemaFile } from './http/index.js'
export { version } from './version.js'
