// The query's errors are defined below every layer that raises them (src/query-error.ts).
export { QueryError, type QueryErrorCode, type QueryErrorDetails } from '../query-error.js'
