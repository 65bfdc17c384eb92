// Row writes through a transaction view: the row itself, its index entries, unique
// constraints, and auto ids. Unique indexes ignore rows whose indexed values include
// null (as SQL does): null is "no value", and many rows may have none.
import type { RecordField, Value } from '../../lang/ast.js'
import type { CollectionIR, SchemaIR } from '../../schema/ir.js'
import { checkReferencesOut, onReferencedDelete } from './references.js'
import { compareValues, decodeKey, decodeRow, encodeKey, encodeKeyScratch, encodeRow, encodeRowFieldsScratch, prefixEnd } from '../../codec/index.js'
import { checkIndexKeySize, checkPrimaryKeySize, checkRowSize, indexKey, indexTree, indexValues, primaryKey, rowsTree, type AutoIds, type TxnView } from '../../txn/index.js'
import { QueryError } from '../errors.js'
import { evaluate, type EvalContext } from '../values/index.js'
import { convertValue, validateFields } from '../values/index.js'
import { describeValue } from '../values/index.js'

type Row = Record<string, Value>

export interface WriteContext {
  view: TxnView
  tenant: string
  /** The whole schema: references cross collections (references.ts). */
  schema: SchemaIR
  now: Date
  /** The auto-id counters (src/txn/auto-ids.ts). */
  ids: AutoIds
}

/**
 * Writes `after` in place of `before` (either may be null): row, indexes, constraints.
 * Every key is checked against the key limit before anything is put.
 */
export function writeRow(ctx: WriteContext, collection: CollectionIR, before: Row | null, after: Row | null): void {
  const { view, tenant } = ctx
  const rows = rowsTree(tenant, collection.name)
  const key = primaryKey(collection, (after ?? before) as Row)
  if (after !== null) checkPrimaryKeySize(key, collection)
  if (after !== null) checkReferencesOut(ctx, collection, before, after)
  const newKeys = collection.indexes.map((index) => {
    const newKey = after === null ? null : indexKey(index, collection, after)
    if (newKey !== null) checkIndexKeySize(newKey, collection, index)
    return newKey
  })
  collection.indexes.forEach((index, i) => {
    const tree = indexTree(tenant, collection.name, index.name)
    const oldKey = before === null ? null : indexKey(index, collection, before)
    const newKey = newKeys[i] ?? null
    if (oldKey !== null && (newKey === null || !oldKey.equals(newKey))) view.delete(tree, oldKey)
    if (newKey !== null && (oldKey === null || !oldKey.equals(newKey))) {
      if (index.unique && after !== null) checkUnique(ctx, collection, index.name, after, newKey)
      view.put(tree, newKey, Buffer.alloc(0))
    }
  })
  if (after === null) {
    view.deleteRow(rows, key)
    // After the row and its index entries are gone, so a cycle of cascades ends.
    if (before !== null) onReferencedDelete(ctx, collection, before, (other, was, now) => writeRow(ctx, other, was, now))
  } else {
    const encoded = encodeRow(after)
    checkRowSize(encoded, collection)
    view.putRow(rows, key, encoded, before === null ? 'i' : 'u')
  }
}

/**
 * Refuses `row` if another row holds its values in unique index `indexName`, then
 * claims them with `entry`, the index entry it puts. Per row this costs one lookup of
 * the claims of this transaction and one bounded read of the snapshot, however many
 * rows the transaction wrote before (a range read merging the transaction's writes was
 * quadratic over a batch inserted out of key order).
 */
function checkUnique(ctx: WriteContext, collection: CollectionIR, indexName: string, row: Row, entry: Buffer): void {
  const index = collection.indexes.find((i) => i.name === indexName)
  if (index === undefined) return
  const values = indexValues(index, row)
  if (values.includes(null)) return
  const { view } = ctx
  const tree = indexTree(ctx.tenant, collection.name, index.name)
  const prefix = encodeKey(values)
  const claim = `unique ${tree} ${prefix.toString('hex')}`
  const self = row[collection.primary] ?? null
  const holder = (key: Buffer) => compareValues(decodeKey(key).at(-1) ?? null, self) !== 0
  // An earlier row of this transaction whose entry still stands.
  const claimant = view.claimant(claim)
  let taken = claimant !== undefined && claimant !== null && view.written(tree, claimant) === true && holder(claimant)
  if (!taken) {
    // A committed row, unless this transaction deleted its entry.
    const end = prefixEnd(prefix)
    const found = view.committedRange(tree, { lower: prefix, ...(end === null ? {} : { upper: end, upperInclusive: false }), limit: 2 })
    taken = found.some(([key]) => holder(key) && view.written(tree, key) !== false)
  }
  if (taken) {
    const shown = values.map((v) => describeValue(v)).join(', ')
    throw new QueryError('constraint_violation', `unique index '${index.name}' of '${collection.name}' already holds ${shown}`, { fields: index.fields })
  }
  view.claim(claim, entry)
}

export function readRow(ctx: WriteContext, collection: CollectionIR, key: Value): Row | null {
  const stored = ctx.view.get(rowsTree(ctx.tenant, collection.name), encodeKey([key]))
  return stored === null ? null : (decodeRow(stored) as Row)
}

/** `insert` refuses an existing primary key; `upsert` replaces that row; `written` (for `returning`) receives each row written. */
export function insertRows(ctx: WriteContext, collection: CollectionIR, records: Value[], mode: 'insert' | 'upsert', written?: Row[]): number {
  const nextId = ctx.ids.taker(ctx.view, ctx.tenant, collection.name)
  const shape = collection.indexes.length === 0 ? rowShape(collection) : null
  const tree = rowsTree(ctx.tenant, collection.name)
  const values: Value[] = new Array<Value>(collection.fields.length).fill(null)
  const ordered: Value[] = shape === null || shape.order === null ? values : new Array<Value>(values.length).fill(null)
  let put = 0
  for (const record of records) {
    const refused = validateFields(collection, record, ctx.now, nextId, values)
    if (refused !== null) throw new QueryError('type_error', refused.error, refused.field === undefined ? {} : { fields: [refused.field] })
    if (shape === null) {
      const row = fieldsRow(collection, values)
      insertRow(ctx, collection, row, mode)
      written?.push(row)
      continue
    }
    // No index to maintain: the key is encoded once for the duplicate check and the
    // put, and the row straight from the values; both are copied by the put.
    const id = values[shape.primary] ?? null
    noteExplicitId(ctx, collection, id)
    const key = encodeKeyScratch(id)
    checkPrimaryKeySize(key, collection)
    const exists = ctx.view.has(tree, key)
    if (exists && mode === 'insert') throw alreadyHas(collection, id)
    if (shape.order !== null) for (let i = 0; i < ordered.length; i += 1) ordered[i] = values[shape.order[i] as number] as Value
    const encoded = encodeRowFieldsScratch(shape.names, ordered)
    checkRowSize(encoded, collection)
    // The first row's size sizes the buffers for the rest (a bulk insert grows them once).
    if (put === 0 && records.length > 64) ctx.view.reserveRows(tree, records.length, Math.ceil((key.length + encoded.length) * 1.1))
    put += 1
    ctx.view.putRow(tree, key, encoded, exists ? 'u' : 'i')
    written?.push(fieldsRow(collection, values))
  }
  return records.length
}

/** Keeps the auto-id counter above an id the caller chose, and has the commit persist it. */
function noteExplicitId(ctx: WriteContext, collection: CollectionIR, id: Value): void {
  if (collection.primary_auto) ctx.ids.note(ctx.view, ctx.tenant, collection.name, id)
}

function insertRow(ctx: WriteContext, collection: CollectionIR, row: Row, mode: 'insert' | 'upsert'): void {
  const id = row[collection.primary] ?? null
  noteExplicitId(ctx, collection, id)
  const existing = readRow(ctx, collection, id)
  if (existing !== null && mode === 'insert') throw alreadyHas(collection, id)
  writeRow(ctx, collection, existing, row)
}

const alreadyHas = (collection: CollectionIR, id: Value) =>
  new QueryError('constraint_violation', `'${collection.name}' already has a row with ${collection.primary} ${describeValue(id)}`, { fields: [collection.primary] })

function fieldsRow(collection: CollectionIR, values: readonly Value[]): Row {
  const row: Row = {}
  collection.fields.forEach((field, i) => { row[field.name] = values[i] as Value })
  return row
}

/**
 * How a row of `collection` is encoded without building it: its field names in the
 * order Object.keys lists them on the row validateRow builds (integer-like names
 * first), and for each the index of its value in `collection.fields` (null: the same
 * order). null when no such shortcut gives the same bytes (a field named `__proto__`).
 */
interface RowShape {
  names: string[]
  order: number[] | null
  /** Index of the primary field in `collection.fields`. */
  primary: number
}

const row_shapes = new WeakMap<CollectionIR, RowShape | null>()

function rowShape(collection: CollectionIR): RowShape | null {
  let shape = row_shapes.get(collection)
  if (shape !== undefined) return shape
  const probe: Row = {}
  for (const field of collection.fields) probe[field.name] = null
  const names = Object.keys(probe)
  const positions = names.map((name) => collection.fields.findIndex((f) => f.name === name))
  const primary = collection.fields.findIndex((f) => f.name === collection.primary)
  shape = names.length !== collection.fields.length || primary < 0 ? null : {
    names,
    order: positions.every((at, i) => at === i) ? null : positions,
    primary,
  }
  row_shapes.set(collection, shape)
  return shape
}

export function updateRows(ctx: WriteContext, collection: CollectionIR, rows: Row[], set: RecordField[], evalCtx: EvalContext, written?: Row[]): number {
  for (const before of rows) {
    const after: Row = { ...before }
    for (const field of set) {
      const declared = collection.fields.find((f) => f.name === field.name)
      if (declared === undefined) throw new QueryError('type_error', `unknown field '${field.name}'`, { fields: [field.name] })
      const converted = convertValue(evaluate(field.value, before, evalCtx), declared.type, declared.optional, declared.name)
      if (!converted.ok) throw new QueryError('type_error', converted.error, { fields: [declared.name] })
      after[field.name] = converted.value
    }
    writeRow(ctx, collection, before, after)
    written?.push(after)
  }
  return rows.length
}

export function deleteRows(ctx: WriteContext, collection: CollectionIR, rows: Row[]): number {
  for (const row of rows) writeRow(ctx, collection, row, null)
  return rows.length
}
