// A stored value and a row as JSON carries them (docs/language.md, "Writes"):
// timestamps are ISO-8601 strings on the wire.
import { ref, type FromSchema } from './from-schema.js'

/** Any JSON value, as a shared schema: what a key or a field holds. */
export const value_schema = {
  $id: 'Value',
  description: 'a stored value as JSON (a timestamp as an ISO-8601 string)',
} as const

/** A row: its fields by name. */
export const row_schema = { type: 'object', additionalProperties: ref('Value') } as const

/** A stored value as JSON carries it (the schema says any JSON value; this type says which). */
export type Value = null | boolean | number | string | Value[] | { [field: string]: Value }
export type Row = FromSchema<typeof row_schema, { Value: Value }>
