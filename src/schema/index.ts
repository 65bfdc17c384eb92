// The schema module: schema files → canonical IR and fingerprint, and the lazy-migration
// plan between two IRs. Only loadSchema needs Node; the browser console imports
// build-ir.js, fingerprint.js and migration-plan.js directly instead of this file.
export type * from './ir.js'
export { buildSchemaIR, buildFromScripts } from './build-ir.js'
export { canonicalJson, canonicalValue } from './canonical-json.js'
export { fingerprint, fingerprintOf } from './fingerprint.js'
export { SchemaError, formatSchemaDiagnostic, type SchemaDiagnostic } from './schema-error.js'
export type { SourceFile } from './report.js'
export { typeText } from './field-type.js'
export { classifyChange, convertValue, type ChangeClass, type Converted, type FieldShape } from './conversion.js'
export { planMigration, describeStep, blockedByDuplicate, blockedByDanglingReference, blockedByValue, type MigrationPlan, type MigrationStep } from './migration-plan.js'
export { loadSchema, SchemaReadError, type LoadedSchema } from './load.js'
export { schemaText } from './schema-text.js'
