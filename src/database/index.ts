export { Database, type BlockedMigration, type OpenOptions } from './database.js'
export { Tenant, type DiffRequest, type DiffResult, type TenantQueryOptions } from './tenant.js'
export { verifyDirectory, type VerifyReport } from './verify.js'
export { EngineError, type EngineErrorCode } from '../engine/index.js'
