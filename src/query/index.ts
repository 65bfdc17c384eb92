export { QueryRunner, type LoadedSchema, type QueryOptions, type TenantGate } from './run.js'
export { QueryError, type QueryErrorCode } from './errors.js'
export type { QueryResult } from './result.js'
export type { PlanHint } from './plan.js'
