// The query's errors are defined below every layer that raises them (src/query-error.ts).
export { QueryError, type QueryErrorCode } from '../query-error.js'
