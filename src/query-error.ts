import { CodedError } from './coded-error.js'

// Errors of running a query, beyond the parser's and checker's diagnostics: each has
// the stable code the HTTP layer maps to a status (docs/api.md, errors). Defined here,
// below every layer that raises them: the query runner, the transaction layer's size
// checks (src/txn/), lazy migration (src/migration/) and the tenant check
// (src/tenants/); src/query/index.ts exports it with the query API.
export type QueryErrorCode =
  | 'type_error'
  | 'constraint_violation'
  | 'unknown_collection'
  | 'migration_blocked'
  | 'query_timeout'
  | 'not_allowed_here'
  | 'conflict'
  | 'readonly_snapshot'
  | 'tenant_suspended'
  | 'key_too_large'
  | 'row_too_large'
  | 'lookup_too_large'
  | 'result_too_large'
  | 'statement_memory_exceeded'
  | 'statement_limit'
  | 'rate_limited'
  | 'quota_exceeded'

/** What a query error adds to its sentence (an error body's fields: docs/api.md, "Errors"). */
export type QueryErrorDetails = {
  /**
   * A write refused for what it holds: the fields of the written collection the refusal
   * is about (a value of the wrong type, a required or unknown field, the fields of a
   * unique index or the primary key that already holds the value, a reference to a row
   * that does not exist), so a form marks them without reading the sentence.
   */
  fields?: readonly string[]
  /** `rate_limited`: the budget the tenant is over, and when to try again. */
  budget?: string
  retry_after_s?: number
  /** `quota_exceeded`: the storage quota a write would go over. */
  quota?: string
  /** `statement_limit`: the tenant's statement limit that stopped the statement. */
  limit?: string
}

export class QueryError extends CodedError<QueryErrorCode> {
  declare readonly details: QueryErrorDetails

  constructor(code: QueryErrorCode, message: string, details: QueryErrorDetails = {}, options?: ErrorOptions) {
    super(code, message, details, options)
  }
}
