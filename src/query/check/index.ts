// Checking a parsed statement against the schema and the parameters (types, names,
// stage order), the checked forms kept per parameter shape, the cache of parsed
// statements, and whether a statement may write.
export { CheckCache } from './check-cache.js'
export { returningItems } from './check-returning.js'
export { type Checked, type CheckedStatement } from './check.js'
export { StatementCache } from './statement-cache.js'
export { statementWrites } from './statement-writes.js'
