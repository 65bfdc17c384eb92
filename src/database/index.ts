export { Database, type OpenOptions } from './database.js'
export { Tenant, type DiffRequest, type DiffResult, type TenantQueryOptions } from './tenant.js'
