// Row writes through a transaction view: the row itself, its index entries, unique
// constraints, and auto ids. Unique indexes ignore rows whose indexed values include
// null (as SQL does): null is "no value", and many rows may have none.
import type { RecordField, Value } from '../lang/ast.js'
import type { CollectionIR } from '../schema/ir.js'
import { compareValues, decodeKey, decodeRow, encodeKey, encodeRow, prefixEnd } from '../codec/index.js'
import { QueryError } from './errors.js'
import { evaluate, type EvalContext } from './evaluate.js'
import { indexKey, indexTree, indexValues, metaTree, primaryKey, rowsTree } from './layout.js'
import { convertValue, validateRow } from './row-validate.js'
import type { TxnView } from './txn-view.js'
import { describeValue } from './types.js'

type Row = Record<string, Value>

export interface WriteContext {
  view: TxnView
  tenant: string
  now: Date
}

/** Writes `after` in place of `before` (either may be null): row, indexes, constraints. */
export function writeRow(ctx: WriteContext, collection: CollectionIR, before: Row | null, after: Row | null): void {
  const { view, tenant } = ctx
  const rows = rowsTree(tenant, collection.name)
  for (const index of collection.indexes) {
    const tree = indexTree(tenant, collection.name, index.name)
    const oldKey = before === null ? null : indexKey(index, collection, before)
    const newKey = after === null ? null : indexKey(index, collection, after)
    if (oldKey !== null && (newKey === null || !oldKey.equals(newKey))) view.delete(tree, oldKey)
    if (newKey !== null && (oldKey === null || !oldKey.equals(newKey))) {
      if (index.unique && after !== null) {
        checkUnique(ctx, collection, index.name, after)
        view.claims.add(`unique ${tree} ${encodeKey(indexValues(index, after)).toString('hex')}`)
      }
      view.put(tree, newKey, Buffer.alloc(0))
    }
  }
  const key = primaryKey(collection, (after ?? before) as Row)
  view.changes.push(after === null ? 'd' : before === null ? 'i' : 'u')
  if (after === null) view.delete(rows, key)
  else view.put(rows, key, encodeRow(after))
}

function checkUnique(ctx: WriteContext, collection: CollectionIR, indexName: string, row: Row): void {
  const index = collection.indexes.find((i) => i.name === indexName)
  if (index === undefined) return
  const values = indexValues(index, row)
  if (values.includes(null)) return
  const prefix = encodeKey(values)
  const end = prefixEnd(prefix)
  const found = ctx.view.range(indexTree(ctx.tenant, collection.name, index.name), {
    lower: prefix,
    ...(end === null ? {} : { upper: end, upperInclusive: false }),
    limit: 2,
  })
  const self = row[collection.primary] ?? null
  for (const [key] of found) {
    if (compareValues(decodeKey(key).at(-1) ?? null, self) !== 0) {
      const shown = values.map((v) => describeValue(v)).join(', ')
      throw new QueryError('constraint_violation', `unique index '${index.name}' of '${collection.name}' already holds ${shown}`)
    }
  }
}

export const autoIdKey = (collection: string) => Buffer.from(`auto/${collection}`)

/**
 * Next auto id of a collection without a declared primary field. Without a counter
 * (a collection that had a declared primary key before, say) ids continue after the
 * largest stored key, so they never collide with existing rows.
 */
function autoIdAllocator(ctx: WriteContext, collection: CollectionIR): () => number {
  const key = autoIdKey(collection.name)
  return () => {
    const stored = ctx.view.get(metaTree(ctx.tenant), key)
    const next = stored === null ? largestId(ctx, collection) + 1 : Number(stored.toString())
    ctx.view.put(metaTree(ctx.tenant), key, Buffer.from(String(next + 1)))
    return next
  }
}

function largestId(ctx: WriteContext, collection: CollectionIR): number {
  const [last] = ctx.view.range(rowsTree(ctx.tenant, collection.name), { reverse: true, limit: 1 })
  const id = last === undefined ? 0 : decodeKey(last[0])[0]
  return typeof id === 'number' ? Math.max(0, Math.floor(id)) : 0
}

/** Keeps the auto-id counter above an id the caller chose. */
function noteExplicitId(ctx: WriteContext, collection: CollectionIR, id: Value): void {
  if (!collection.primary_auto || typeof id !== 'number') return
  const key = autoIdKey(collection.name)
  const stored = ctx.view.get(metaTree(ctx.tenant), key)
  if (stored === null || Number(stored.toString()) <= id) ctx.view.put(metaTree(ctx.tenant), key, Buffer.from(String(id + 1)))
}

export function readRow(ctx: WriteContext, collection: CollectionIR, key: Value): Row | null {
  const stored = ctx.view.get(rowsTree(ctx.tenant, collection.name), encodeKey([key]))
  return stored === null ? null : (decodeRow(stored) as Row)
}

/** `insert` refuses an existing primary key; `upsert` replaces that row. */
export function insertRows(ctx: WriteContext, collection: CollectionIR, records: Value[], mode: 'insert' | 'upsert'): number {
  const nextId = autoIdAllocator(ctx, collection)
  for (const record of records) {
    const checked = validateRow(collection, record, ctx.now, nextId)
    if (!checked.ok) throw new QueryError('type_error', checked.error)
    const row = checked.value
    const id = row[collection.primary] ?? null
    noteExplicitId(ctx, collection, id)
    const existing = readRow(ctx, collection, id)
    if (existing !== null && mode === 'insert') {
      throw new QueryError('constraint_violation', `'${collection.name}' already has a row with ${collection.primary} ${describeValue(id)}`)
    }
    writeRow(ctx, collection, existing, row)
  }
  return records.length
}

export function updateRows(ctx: WriteContext, collection: CollectionIR, rows: Row[], set: RecordField[], evalCtx: EvalContext): number {
  for (const before of rows) {
    const after: Row = { ...before }
    for (const field of set) {
      const declared = collection.fields.find((f) => f.name === field.name)
      if (declared === undefined) throw new QueryError('type_error', `unknown field '${field.name}'`)
      const converted = convertValue(evaluate(field.value, before, evalCtx), declared.type, declared.optional, declared.name)
      if (!converted.ok) throw new QueryError('type_error', converted.error)
      after[field.name] = converted.value
    }
    writeRow(ctx, collection, before, after)
  }
  return rows.length
}

export function deleteRows(ctx: WriteContext, collection: CollectionIR, rows: Row[]): number {
  for (const row of rows) writeRow(ctx, collection, row, null)
  return rows.length
}
