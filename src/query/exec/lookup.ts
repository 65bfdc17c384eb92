// The lookup stage (docs/language.md "Lookups"): each incoming row gains the rows of
// another collection whose field equals a value of the row. How the other side is read
// is chosen once per stage and shown in the plan hint:
//
// - `primary`: the field is the other collection's primary key: one point read per row;
// - `index`: an index starts with the field: one prefix range per row;
// - `hash`: anything else: the other collection is read once into a hash table, whose
//   encoded rows are bounded by lookup_hash_bytes_max (`lookup_too_large` beyond it).
//
// What a lookup holds is charged to the statement's memory (statement-memory.ts,
// docs/language.md "Limits of a statement"): the hash table for the statement's life,
// the rows read by key or index until the batch (or row) they were read for is passed
// on, so a `lookup many` of thousands of rows each cannot fill the heap in one batch.
//
// A null value matches nothing (as an SQL join). A single lookup takes the first match
// in the other collection's primary-key order; `many` takes all of them in that order;
// `inner` drops the rows with no match. Reads go through the statement's view, so a
// lookup sees the snapshot (or pin) and the earlier writes of its atomic block.
import type { Stage, Value } from '../../lang/ast.js'
import type { CollectionIR, IndexIR, SchemaIR } from '../../schema/ir.js'
import { decodeRow, decodeRowAt, decodeRowFields, decodeRowFieldsAt, encodeKey } from '../../codec/index.js'
import { rowKeysUnder } from '../write/index.js'
import { indexTree, rowsTree, type TxnView } from '../../txn/index.js'
import type { Row } from './access.js'
import type { Pace } from '../pace/index.js'
import { QueryError } from '../errors.js'
import { evaluate, type EvalContext } from '../values/index.js'
import { parseTimestamp } from '../values/index.js'
import { entry_overhead_bytes, type StatementMemory } from './statement-memory.js'
import type { LookupHint } from '../plan/index.js'

type LookupStage = Stage & { kind: 'lookup' }


export interface LookupEnv {
  view: TxnView
  tenant: string
  schema: SchemaIR
  eval: EvalContext
  examined: { rows: number }
  /** The statement's pace: building a hash table yields and checks the statement's limits as its reads do. */
  pace: Pace
  /** Encoded bytes a hash lookup may hold (lookup_hash_bytes_max unless a caller lowers it). */
  hash_bytes_max: number
  memory: StatementMemory
}

type Access = { kind: 'primary' } | { kind: 'index'; index: IndexIR } | { kind: 'hash' }

export function lookupCollection(schema: SchemaIR, stage: LookupStage): CollectionIR {
  const other = schema.collections.find((c) => c.name === stage.collection)
  if (other === undefined) throw new Error(`lookup of a collection the checker did not find: ${stage.collection}`)
  return other
}

function chooseAccess(other: CollectionIR, field: string): Access {
  if (field === other.primary) return { kind: 'primary' }
  // The shortest index that starts with the field: fewest entries to read per prefix.
  const index = other.indexes.filter((i) => i.fields[0] === field).sort((a, b) => a.fields.length - b.fields.length)[0]
  return index === undefined ? { kind: 'hash' } : { kind: 'index', index }
}

export function lookupHint(schema: SchemaIR, stage: LookupStage): LookupHint {
  const other = lookupCollection(schema, stage)
  const access = chooseAccess(other, stage.field)
  return { collection: other.name, access: access.kind, ...(access.kind === 'index' ? { index: access.index.name } : {}) }
}

export async function* lookupRows(rows: AsyncIterable<Row>, stage: LookupStage, env: LookupEnv): AsyncGenerator<Row> {
  const lookup = await batchLookup(stage, env, null)
  for await (const row of rows) {
    const value = lookup.value(row)
    const found = lookup.matches([value], true)[0] as Row[]
    if (lookup.add(row, found)) yield row
    lookup.release()
  }
}

/**
 * A lookup stage ready to run, its way of reading chosen (and a hash table built) once:
 * the streaming stage above runs it a row at a time, the batch path
 * (batch-pipeline.ts) a batch at a time, so a lookup by primary key reads all of a
 * batch's matches in one engine call.
 */
export interface BatchLookup {
  stage: LookupStage
  /** The value a row looks up (the stage's left side, as the field's type reads it). */
  value(row: Row): Value
  /**
   * The matching rows of each value, in order. `count`: add the rows read to the
   * statement's examined rows (the batch path counts them itself, only for the rows
   * its read reaches).
   */
  matches(values: readonly Value[], count: boolean): Row[][]
  /** Gives back the statement memory the rows `matches` read hold: their batch (or row) has been passed on. */
  release(): void
  /** Whether each match is a row read for it (by key or index; a hash table's were read once, before). */
  readonly reads: boolean
  /** Adds the matches to `row` as the stage's column; false when an inner lookup drops it. */
  add(row: Row, found: Row[]): boolean
  /** `add` of at most one match (a lookup by primary key), with no array made for it. */
  addOne(row: Row, found: Row | null): boolean
  /**
   * The field of the incoming rows that the storage core can look up itself, in the
   * range read that brings them (Snapshot.rangeLookup, the rows tree `tree`): see
   * nativeLookupField. Null: the lookup reads through `matches`.
   */
  readonly nativeField: string | null
  /** The other collection's rows tree. */
  readonly tree: string
  /** A matched row as `matches` decodes it, read where it lies in `buf`. */
  decodeAt(buf: Buffer, from: number, to: number): Row
}

/**
 * The field whose stored value the storage core can turn into the other collection's
 * key as `value` would (rowkey::field_key: scalars only), or null. Only for a lookup by
 * primary key whose rows come straight from `incoming`'s rows tree (the first stage of
 * a range read), whose left side is a declared field of those rows of a scalar type
 * other than json. A string field looked up in a timestamp key is parsed by `value`
 * first, so it stays with `matches`.
 */
function nativeLookupField(stage: LookupStage, other: CollectionIR, incoming: CollectionIR | null): string | null {
  if (incoming === null || stage.field !== other.primary || stage.left.kind !== 'field' || stage.left.path.length !== 1) return null
  const name = stage.left.path[0] as string
  const type = incoming.fields.find((f) => f.name === name)?.type.kind
  const keyType = other.fields.find((f) => f.name === other.primary)?.type.kind
  if (type === undefined || type === 'json' || type === 'list') return null
  if (type === 'string' && keyType === 'timestamp') return null
  return name
}

/**
 * `fields`: the only fields of the rows found that later stages read (lookup-fields.ts);
 * null: all. `incoming`: the collection whose rows reach the stage straight from its
 * rows tree (the lookup is a range read's first stage), else null.
 */
export async function batchLookup(stage: LookupStage, env: LookupEnv, fields: ReadonlySet<string> | null, incoming: CollectionIR | null = null): Promise<BatchLookup> {
  const other = lookupCollection(env.schema, stage)
  const access = chooseAccess(other, stage.field)
  const decode = fields === null ? decodeRow : (stored: Buffer) => decodeRowFields(stored, fields)
  const decodeAt = fields === null ? decodeRowAt : (buf: Buffer, from: number, to: number) => decodeRowFieldsAt(buf, from, to, fields)
  const fieldType = other.fields.find((f) => f.name === stage.field)?.type
  const tree = rowsTree(env.tenant, other.name)
  const hash = access.kind === 'hash' ? await hashTable(env, other, tree, stage.field) : null
  const none: Row[] = []
  // The rows read by key or index since the last release, charged as they are read.
  const held = { bytes: 0 }
  const holder = `lookup on '${other.name}.${stage.field}'`
  const charged = (stored: Buffer) => {
    const bytes = stored.length + entry_overhead_bytes
    env.memory.hold(bytes, holder, 'narrow the rows before the lookup, or take fewer')
    held.bytes += bytes
    return decode(stored)
  }
  return {
    stage,
    reads: hash === null,
    nativeField: nativeLookupField(stage, other, incoming),
    tree,
    decodeAt,
    value(row) {
      const value = evaluate(stage.left, row, env.eval)
      return fieldType?.kind === 'timestamp' && typeof value === 'string' ? (parseTimestamp(value) ?? value) : value
    },
    matches(values, count) {
      if (hash !== null) return values.map((value) => (value === null ? none : (hash.get(keyOf(value)) ?? none)))
      if (access.kind === 'primary') return primaryMatches(env, tree, values, count, charged)
      return values.map((value) => (value === null ? none : matches(env, access, other, tree, value, stage.many, count, charged)))
    },
    release() {
      env.memory.release(held.bytes)
      held.bytes = 0
    },
    add(row, found) {
      if (stage.inner && found.length === 0) return false
      // Rows reaching a stage are the pipeline's own (decoded or built by an earlier
      // stage), so the column is added in place rather than by copying the row.
      row[stage.name] = stage.many ? found : (found[0] ?? null)
      return true
    },
    addOne(row, found) {
      if (stage.inner && found === null) return false
      row[stage.name] = stage.many ? (found === null ? [] : [found]) : found
      return true
    },
  }
}

/** The rows of `values` as primary keys of `tree`: one batched read for all of them. */
function primaryMatches(env: LookupEnv, tree: string, values: readonly Value[], count: boolean, decode: (stored: Buffer) => Row): Row[][] {
  const keys: Buffer[] = []
  for (const value of values) if (value !== null) keys.push(encodeKey([value]))
  const stored = env.view.getMany(tree, keys)
  let next = 0
  return values.map((value) => {
    if (value === null) return []
    const found = stored[next++] as Buffer | null
    if (found === null) return []
    if (count) env.examined.rows += 1
    return [decode(found)]
  })
}

const keyOf = (value: Value) => encodeKey([value]).toString('latin1')

/** The matching rows in primary-key order (only the first when `many` is false and the order is the index's). */
function matches(env: LookupEnv, access: Access, other: CollectionIR, tree: string, value: Value, many: boolean, count: boolean, decode: (stored: Buffer) => Row): Row[] {
  if (access.kind !== 'index') return []
  const indexName = indexTree(env.tenant, other.name, access.index.name)
  // A one-field index lists a value's entries in primary-key order already.
  const ordered = access.index.fields.length === 1
  const keys = rowKeysUnder(env.view, indexName, value, ordered && !many ? 1 : Infinity)
  if (!ordered) keys.sort(Buffer.compare)
  const wanted = many ? keys : keys.slice(0, 1)
  return wanted.map((key) => {
    const stored = env.view.get(tree, key)
    // An index entry without its row is a bug in index maintenance: say so loudly.
    if (stored === null) throw new Error(`index ${access.index.name} names a missing row`)
    if (count) env.examined.rows += 1
    return decode(stored)
  })
}

/** The other collection by the encoded value of `field` (rows in primary-key order), within the memory bound. */
async function hashTable(env: LookupEnv, other: CollectionIR, tree: string, field: string): Promise<Map<string, Row[]>> {
  const table = new Map<string, Row[]>()
  let bytes = 0
  const advice = `declare index (${field}) in '${other.name}' so each row is looked up by it`
  const holder = `hash lookup on '${other.name}.${field}'`
  let bounds: { lower?: Buffer; lowerInclusive?: boolean } = {}
  for (;;) {
    const batch = env.view.range(tree, { ...bounds, limit: 1000 })
    for (const [key, stored] of batch) {
      env.examined.rows += 1
      const row = decodeRow(stored) as Row
      const value = row[field] ?? null
      if (value === null) continue
      bytes += key.length + stored.length
      if (bytes > env.hash_bytes_max) {
        throw new QueryError('lookup_too_large', `lookup on '${other.name}.${field}' would hold more than ${env.hash_bytes_max} bytes of rows in memory; ${advice}`)
      }
      env.memory.hold(key.length + stored.length + entry_overhead_bytes, holder, advice)
      const id = keyOf(value)
      const list = table.get(id)
      if (list === undefined) table.set(id, [row])
      else list.push(row)
      if (env.pace.due()) await env.pace.yield()
    }
    const last = batch.at(-1)
    if (last === undefined || batch.length < 1000) return table
    bounds = { lower: last[0], lowerInclusive: false }
    env.pace.check()
  }
}
