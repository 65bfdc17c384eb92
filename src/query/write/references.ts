// References between collections (docs/language.md "References"), kept by every write:
//
// - a row written with a reference names an existing row of the target, or the write
//   fails with constraint_violation;
// - deleting a referenced row refuses, cascades to the rows referring to it, or sets
//   their field to null, as each reference field declares (found through the index the
//   schema gives every reference field, schema/references.ts).
//
// Under snapshot isolation both checks read a snapshot, so a concurrent delete of the
// target and insert of a row referring to it could each pass and both commit. Two
// signal keys per referenced row close that: a write that refers to a row writes the
// signal `ref+` of that row and depends on its `ref-`; a delete of the row writes `ref-`
// and depends on `ref+`. Whichever commits second conflicts (first-committer-wins),
// while writers that only refer to the same row never conflict with one another
// (signal keys conflict only with their dependants, src/mvcc/conflict-log.ts).
import type { Value } from '../../lang/ast.js'
import type { CollectionIR, FieldIR, SchemaIR } from '../../schema/ir.js'
import { decodeRow, encodeKey } from '../../codec/index.js'
import { rowKeysUnder } from './index-prefix.js'
import { signalKey } from '../../mvcc/index.js'
import { indexTree, rowsTree, type TxnView } from '../../txn/index.js'
import { QueryError } from '../errors.js'
import { describeValue } from '../values/index.js'

type Row = Record<string, Value>

export interface ReferenceContext {
  view: TxnView
  tenant: string
  schema: SchemaIR
}

/** The signal a write referring to the row at `key` of `tree` writes (and a delete of it depends on). */
export const referredSignal = (tree: string, key: Buffer) => signalKey(`ref+ ${tree} ${key.toString('hex')}`)
/** The signal a delete of the row at `key` of `tree` writes (and a write referring to it depends on). */
export const deletedSignal = (tree: string, key: Buffer) => signalKey(`ref- ${tree} ${key.toString('hex')}`)

/** Every reference field of `after` whose value is new names an existing row, with the signals that keep it so. */
export function checkReferencesOut(ctx: ReferenceContext, collection: CollectionIR, before: Row | null, after: Row): void {
  for (const field of collection.fields) {
    if (field.ref === undefined) continue
    const value = after[field.name] ?? null
    if (value === null || (before !== null && encodeKey([before[field.name] ?? null]).equals(encodeKey([value])))) continue
    const tree = rowsTree(ctx.tenant, field.ref.collection)
    const key = encodeKey([value])
    if (!ctx.view.has(tree, key)) {
      throw new QueryError('constraint_violation', `field '${field.name}' of '${collection.name}' refers to ${describeValue(value)} of '${field.ref.collection}', which does not exist`, { fields: [field.name] })
    }
    ctx.view.conflictOn(referredSignal(tree, key))
    ctx.view.dependOn(deletedSignal(tree, key))
  }
}

const referrers_by_schema = new WeakMap<SchemaIR, Map<string, Array<{ collection: CollectionIR; field: FieldIR }>>>()

/** The reference fields that point at `target`, across the schema. */
function referrers(schema: SchemaIR, target: string): Array<{ collection: CollectionIR; field: FieldIR }> {
  let byTarget = referrers_by_schema.get(schema)
  if (byTarget === undefined) {
    byTarget = new Map()
    for (const collection of schema.collections) {
      for (const field of collection.fields) {
        if (field.ref === undefined) continue
        const list = byTarget.get(field.ref.collection) ?? []
        list.push({ collection, field })
        byTarget.set(field.ref.collection, list)
      }
    }
    referrers_by_schema.set(schema, byTarget)
  }
  return byTarget.get(target) ?? []
}

/**
 * The row `row` of `collection` was deleted: apply each referring field's action to the
 * rows referring to it (`write` writes one row, as write.ts's writeRow, so cascades
 * follow references further and keep indexes).
 */
export function onReferencedDelete(ctx: ReferenceContext, collection: CollectionIR, row: Row, write: (collection: CollectionIR, before: Row, after: Row | null) => void): void {
  const fields = referrers(ctx.schema, collection.name)
  if (fields.length === 0) return
  const pk = row[collection.primary] ?? null
  const tree = rowsTree(ctx.tenant, collection.name)
  const key = encodeKey([pk])
  ctx.view.conflictOn(deletedSignal(tree, key))
  ctx.view.dependOn(referredSignal(tree, key))
  for (const { collection: from, field } of fields) {
    const referring = referringRows(ctx, from, field, pk)
    if (referring.length === 0) continue
    const action = field.ref?.on_delete ?? 'refuse'
    if (action === 'refuse') {
      throw new QueryError('constraint_violation', `'${collection.name}' row ${describeValue(pk)} is referred to by ${referring.length === 1 ? 'a row' : `${referring.length} rows`} of '${from.name}' (field '${field.name}' says on delete refuse); delete or change those first`)
    }
    for (const other of referring) write(from, other, action === 'cascade' ? null : { ...other, [field.name]: null })
  }
}

/** The rows of `from` whose `field` holds `pk`, through the index that starts with the field. */
function referringRows(ctx: ReferenceContext, from: CollectionIR, field: FieldIR, pk: Value): Row[] {
  const index = from.indexes.find((i) => i.fields[0] === field.name)
  if (index === undefined) throw new Error(`reference field ${from.name}.${field.name} has no index (schema/references.ts adds one)`)
  const rows = rowsTree(ctx.tenant, from.name)
  return rowKeysUnder(ctx.view, indexTree(ctx.tenant, from.name, index.name), pk).map((key) => {
    const stored = ctx.view.get(rows, key)
    if (stored === null) throw new Error(`index ${index.name} names a missing row`)
    return decodeRow(stored) as Row
  })
}
