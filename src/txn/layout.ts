// Where a tenant's data lives in the engine's trees. Tree names:
//
// | tree                          | key                               | value             |
// |-------------------------------|-----------------------------------|-------------------|
// | `t/<tenant>/r/<collection>`   | encodeKey([primary key])          | encodeRow(row)    |
// | `t/<tenant>/x/<coll>/<index>` | encodeKey([...index values, pk])  | empty             |
// | `t/<tenant>/meta`             | UTF-8 name (below)                | by name           |
//
// Meta entries: `schema` (canonical JSON of the IR the tenant was migrated to),
// `fingerprint` (its fingerprint), `auto/<collection>` (the auto-id high-water mark,
// decimal: auto-ids.ts).
// Index entries end with the primary key so equal index values stay distinct and
// an index scan yields primary keys in index order.
import type { Value } from '../lang/ast.js'
import type { CollectionIR, IndexIR } from '../schema/ir.js'
import { encodeKey } from '../codec/index.js'
import type { Snapshot } from '../engine/index.js'
import { tree_name_buffers_max } from '../limits.js'

/**
 * The rows tree of a collection. The same string each time for the same names: a point
 * read names its tree on every call, and a string made afresh must be hashed again
 * wherever it is looked up (profiled: docs/performance.md, P3). Bounded, as tenants are not.
 */
export function rowsTree(tenant: string, collection: string): string {
  let names = rows_trees.get(tenant)
  if (names === undefined) {
    if (rows_trees.size >= tree_name_buffers_max) rows_trees.clear()
    names = new Map()
    rows_trees.set(tenant, names)
  }
  let name = names.get(collection)
  if (name === undefined) {
    name = `t/${tenant}/r/${collection}`
    names.set(collection, name)
  }
  return name
}

const rows_trees = new Map<string, Map<string, string>>()

export const indexTree = (tenant: string, collection: string, index: string) => `t/${tenant}/x/${collection}/${index}`
export const metaTree = (tenant: string) => `t/${tenant}/meta`
/** Every tree of a tenant starts with this. */
export const tenantPrefix = (tenant: string) => `t/${tenant}/`
/** Every rows tree of a tenant starts with this; the collection's name follows. */
export const rowsPrefix = (tenant: string) => `t/${tenant}/r/`

/** Meta keys: the applied schema (canonical JSON) and its fingerprint. */
export const meta_schema_key = Buffer.from('schema')
export const meta_fingerprint_key = Buffer.from('fingerprint')
/** The meta key of a collection's auto-id high-water mark (decimal text: every id below it may have been issued). */
export const autoIdKey = (collection: string) => Buffer.from(`auto/${collection}`)

export const primaryKey = (collection: CollectionIR, row: Record<string, Value>) => encodeKey([row[collection.primary] ?? null])

export const indexValues = (index: IndexIR, row: Record<string, Value>): Value[] => index.fields.map((f) => row[f] ?? null)

export const indexKey = (index: IndexIR, collection: CollectionIR, row: Record<string, Value>) =>
  encodeKey([...indexValues(index, row), row[collection.primary] ?? null])

/** Tenants that have a meta tree in this snapshot (every tenant ever migrated). */
export function tenantsWithData(snapshot: Snapshot): string[] {
  return snapshot.trees().flatMap((tree) => /^t\/([^/]+)\/meta$/.exec(tree.name)?.[1] ?? [])
}
