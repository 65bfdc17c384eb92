// Lazy migration (docs/language.md, "Lazy migration"): the applier of a migration plan
// over one tenant's data, and the migrator that applies it once per tenant, on first
// touch, through the committer.
export { Migrator, type FrozenAt, type MigrationTarget, type TenantExists } from './migrator.js'
export { appliedSchema } from './migrate.js'
