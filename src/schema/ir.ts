// The schema IR: the canonical JSON form of the loaded schema files. Its xxHash64 is
// the schema fingerprint; each tenant records the IR it was last migrated to, and
// lazy migration compares the two (src/schema/migration-plan.ts).
//
// Canonical means: collections and queries sorted by name, fields in declaration
// order, indexes sorted by name, object keys in the order written here, and every
// optional member present (null or false or []), so equal schemas give equal bytes.

/** A JSON value (defaults are stored as JSON; timestamps as ISO-8601 strings). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

export type ScalarType = 'int' | 'float' | 'string' | 'bool' | 'timestamp' | 'json'

export type FieldType = { kind: ScalarType } | { kind: 'list'; item: FieldType }

export type DefaultIR = { kind: 'value'; value: JsonValue } | { kind: 'now' }

export interface FieldIR {
  name: string
  type: FieldType
  /** `T?`: may be null or absent. */
  optional: boolean
  default: DefaultIR | null
  /** `was old_name`: this field is `old_name` renamed; data is kept. */
  was: string | null
  /** `narrowed`: the author accepts a narrowing type change. */
  narrowed: boolean
  /**
   * `ref users`: the field holds the primary key of a row of `collection` (its type is
   * that key's). Present only on reference fields, so schemas without references keep
   * their canonical form and fingerprint.
   */
  ref?: ReferenceIR
}

export interface ReferenceIR {
  collection: string
  /** What deleting the referenced row does to this row (docs/language.md "References"). */
  on_delete: 'refuse' | 'cascade' | 'set_null'
}

export interface IndexIR {
  /** `email` for `email: string unique`; fields joined by `_` for `index (a, b)`. */
  name: string
  fields: string[]
  unique: boolean
}

export interface CollectionIR {
  name: string
  /** The primary field's name. */
  primary: string
  /** True when no field was declared primary and `id: int primary` was assigned. */
  primary_auto: boolean
  fields: FieldIR[]
  indexes: IndexIR[]
  /** `collection x was y`: renamed from y. */
  was: string | null
  /** `dropped f`: fields whose removal (with their data) the author accepts. */
  dropped: string[]
}

export interface QueryParamIR {
  name: string
  type: FieldType
  optional: boolean
  default: JsonValue | null
}

export interface QueryIR {
  name: string
  params: QueryParamIR[]
  /** The body pipeline's source text, as written (parsed again when called). */
  body: string
}

export interface SchemaIR {
  version: 1
  collections: CollectionIR[]
  queries: QueryIR[]
  /** `dropped collection c`: collections whose removal the author accepts. */
  dropped_collections: string[]
}
