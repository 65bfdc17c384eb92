// The query layer's entry points (docs/architecture.md, "The path of a query"): the
// QueryRunner that runs a query text for a tenant, prepared statements, and the
// transaction handle application code holds. The top of src/query: no other part of it
// imports these; src/query/index.ts exports them to the embedding API.
export { PreparedStatement, type ResultRow } from './prepared.js'
export { type LoadedSchema, type QueryOptions, QueryRunner, type TenantGate } from './run.js'
export { type Transaction, type TransactionOptions } from './transaction.js'
