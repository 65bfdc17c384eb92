// Pipeline stages as async-iterator transforms: rows stream through, `take` stops
// the reading upstream, and only sort, aggregate and distinct hold rows (sort with
// a following take keeps just the rows it may still return, as does one the answer's
// row bound ends). What they hold is charged to the statement's memory
// (statement-memory.ts, docs/language.md "Limits of a statement"). Rows read are
// paced by the reader (access.ts); the rows a sort or an aggregate holds are sorted and
// given out at the statement's pace too (pace.ts), so neither holds the event loop.
import type { AggregateItem, Expr, SortKey, Stage, Value } from '../../lang/ast.js'
import { compareValues, encodeKey } from '../../codec/index.js'
import { QueryError } from '../errors.js'
import { describeValue } from '../values/index.js'
import { evaluate, floatOverflow, type EvalContext } from '../values/index.js'
import type { Row } from './access.js'
import { entry_overhead_bytes, type StatementMemory } from './statement-memory.js'
import type { Pace } from '../pace/index.js'
import { pacedSort } from '../pace/index.js'

type Rows = AsyncIterable<Row>

/** Runs a lookup stage (lookup.ts): it reads another collection, which these transforms cannot. */
export type LookupRunner = (rows: Rows, stage: Stage & { kind: 'lookup' }) => Rows

export interface StageEnv {
  eval: EvalContext
  memory: StatementMemory
  /** When the statement yields to the event loop, and its deadline (pace.ts). */
  pace: Pace
  /**
   * Rows the statement takes from its last stage at most: the answer's bound and one
   * more (which says it was truncated), or Infinity for a write, which takes them all.
   */
  rows_taken_max: number
  lookup?: LookupRunner
}

/** What a stage holds, charged to the statement's memory as it grows. */
interface Held {
  memory: StatementMemory
  bytes: number
}

export function applyStage(rows: Rows, stage: Stage, next: Stage[], env: StageEnv): Rows {
  const ctx = env.eval
  switch (stage.kind) {
    case 'lookup':
      if (env.lookup === undefined) throw new Error('a lookup stage needs a lookup runner')
      return env.lookup(rows, stage)
    case 'where': return filter(rows, stage.predicate, ctx)
    case 'select': return project(rows, stage.items, ctx)
    case 'sort': return holding(env.memory, (held) => sort(rows, stage.keys, keepForSort(next, ctx, env.rows_taken_max), ctx, held, env.pace))
    case 'skip': return skip(rows, count(stage.count, ctx))
    case 'take': return take(rows, count(stage.count, ctx))
    case 'count': return countRows(rows)
    case 'aggregate': return holding(env.memory, (held) => aggregate(rows, stage.items, stage.by, ctx, held, env.pace))
    case 'distinct': return holding(env.memory, (held) => distinct(rows, stage.fields, ctx, held))
    // get is the access path itself; update and delete are sinks (write.ts).
    case 'get': case 'update': case 'delete': return rows
  }
}

function count(expr: Expr, ctx: EvalContext): number {
  return evaluate(expr, {}, ctx) as number
}

/** A stage that holds rows, giving back what it held when it ends, however it ends (a take after it ends it early). */
async function* holding(memory: StatementMemory, stage: (held: Held) => Rows): Rows {
  const held: Held = { memory, bytes: 0 }
  try {
    yield* stage(held)
  } finally {
    memory.release(held.bytes)
  }
}

/** Charges `bytes` of one entry (a group, a value seen) to `holder`. */
function hold(held: Held, bytes: number, holder: string): void {
  held.memory.hold(bytes, holder)
  held.bytes += bytes
}

/**
 * How many rows a sort must keep: skip + take when a take follows; skip + what the
 * statement takes when only selects and skips follow; else all.
 */
function keepForSort(next: Stage[], ctx: EvalContext, taken: number): number {
  let skipped = 0
  for (const stage of next) {
    if (stage.kind === 'skip') skipped += count(stage.count, ctx)
    else if (stage.kind === 'take') return skipped + count(stage.count, ctx)
    // A select keeps the number of rows; anything else (a where) needs them all.
    else if (stage.kind !== 'select') return Infinity
  }
  return skipped + taken
}

async function* filter(rows: Rows, predicate: Expr, ctx: EvalContext): Rows {
  for await (const row of rows) if (evaluate(predicate, row, ctx) === true) yield row
}

async function* project(rows: Rows, items: Array<{ name: string; expr: Expr }>, ctx: EvalContext): Rows {
  for await (const row of rows) {
    const out: Row = {}
    for (const item of items) out[item.name] = evaluate(item.expr, row, ctx)
    yield out
  }
}

async function* skip(rows: Rows, n: number): Rows {
  let seen = 0
  for await (const row of rows) if (seen++ >= n) yield row
}

async function* take(rows: Rows, n: number): Rows {
  if (n === 0) return
  let given = 0
  for await (const row of rows) {
    yield row
    if (++given >= n) return
  }
}

async function* countRows(rows: Rows): Rows {
  let n = 0
  for await (const _ of rows) n += 1
  yield { count: n }
}

/**
 * Stable sort by the keys; nulls first ascending and last descending, the key
 * encoding's order. With a bound, keeps at most 2 × bound rows at a time.
 */
async function* sort(rows: Rows, keys: SortKey[], bound: number, ctx: EvalContext, held: Held, pace: Pace): Rows {
  type Keyed = { row: Row; keys: Value[]; seq: number; bytes: number }
  const order = (a: Keyed, b: Keyed) => {
    for (let i = 0; i < keys.length; i += 1) {
      const c = compareValues(a.keys[i] ?? null, b.keys[i] ?? null)
      if (c !== 0) return keys[i]?.descending === true ? -c : c
    }
    return a.seq - b.seq
  }
  let kept: Keyed[] = []
  let seq = 0
  for await (const row of rows) {
    const bytes = held.memory.holdRow(row, 'sort')
    held.bytes += bytes
    kept.push({ row, keys: keys.map((k) => evaluate(k.expr, row, ctx)), seq: seq++, bytes })
    if (kept.length >= 2 * bound) {
      kept = await pacedSort(kept, order, pace)
      // The rows trimmed away are let go.
      let dropped = 0
      for (let i = bound; i < kept.length; i += 1) dropped += (kept[i] as Keyed).bytes
      held.memory.release(dropped)
      held.bytes -= dropped
      kept = kept.slice(0, bound)
    }
  }
  kept = await pacedSort(kept, order, pace)
  const n = Math.min(kept.length, bound)
  for (let i = 0; i < n; i += 1) {
    yield (kept[i] as Keyed).row
    if (pace.due()) await pace.yield()
  }
}

interface Group {
  by: Value[]
  states: AggregateState[]
}

interface AggregateState {
  count: number
  sum: number
  min: Value
  max: Value
  /** count_distinct: the encoded values seen. */
  seen?: Set<string>
}

/** Each group weighs its encoded key (hex: two characters a byte) and an entry; each value count_distinct keeps, its encoded bytes and an entry. */
async function* aggregate(rows: Rows, items: AggregateItem[], by: Expr[], ctx: EvalContext, held: Held, pace: Pace): Rows {
  const groups = new Map<string, Group>()
  for await (const row of rows) {
    const byValues = by.map((e) => evaluate(e, row, ctx))
    const id = encodeKey(byValues).toString('hex')
    let group = groups.get(id)
    if (group === undefined) {
      hold(held, id.length / 2 + entry_overhead_bytes, 'aggregate')
      group = { by: byValues, states: items.map(() => ({ count: 0, sum: 0, min: null, max: null })) }
      groups.set(id, group)
    }
    items.forEach((item, i) => accumulate(group.states[i] as AggregateState, item, row, ctx, held))
  }
  // No rows and no grouping: one row of empty aggregates (count 0, sum null), as in SQL.
  if (groups.size === 0 && by.length === 0) groups.set('', { by: [], states: items.map(() => ({ count: 0, sum: 0, min: null, max: null })) })
  // Groups come out in the order of their keys: deterministic, and an index scan agrees.
  // (The ids compared as Array.prototype.sort compares strings: by UTF-16 code units.)
  for (const id of await pacedSort([...groups.keys()], (a, b) => (a < b ? -1 : a > b ? 1 : 0), pace)) {
    const group = groups.get(id) as Group
    const out: Row = {}
    by.forEach((e, i) => { out[e.kind === 'field' ? (e.path.at(-1) as string) : `by${i}`] = group.by[i] ?? null })
    items.forEach((item, i) => { out[item.name] = result(group.states[i] as AggregateState, item) })
    yield out
    if (pace.due()) await pace.yield()
  }
}

function accumulate(state: AggregateState, item: AggregateItem, row: Row, ctx: EvalContext, held: Held): void {
  if (item.arg === null) {
    state.count += 1
    return
  }
  const value = evaluate(item.arg, row, ctx)
  if (value === null) return // aggregates skip nulls
  if (item.fn === 'count_distinct') {
    // Values equal under == count once: 3 and 3.0 encode alike, as do a timestamp and its instant.
    state.seen ??= new Set()
    const seen = encodeKey([value]).toString('latin1')
    if (!state.seen.has(seen)) hold(held, seen.length + entry_overhead_bytes, 'aggregate')
    state.seen.add(seen)
    return
  }
  state.count += 1
  if (item.fn === 'sum' || item.fn === 'avg') {
    if (typeof value !== 'number') throw new QueryError('type_error', `${item.fn}() takes numbers, got ${describeValue(value)}`)
    state.sum += value
    if (item.fn === 'sum' && ctx.integerOps.has(item.arg) && !Number.isSafeInteger(state.sum)) {
      throw new QueryError('type_error', `integer overflow: sum(${item.name}) is beyond ±2^53`)
    }
    // avg divides this sum too: a sum beyond the float range fails both, as SQLite's would give infinity.
    if (!Number.isFinite(state.sum)) throw floatOverflow(`the running sum of ${item.fn}() for ${item.name}`)
  }
  if (state.min === null || compareValues(value, state.min) < 0) state.min = value
  if (state.max === null || compareValues(value, state.max) > 0) state.max = value
}

function result(state: AggregateState, item: AggregateItem): Value {
  switch (item.fn) {
    case 'count': return state.count
    case 'count_distinct': return state.seen?.size ?? 0
    case 'sum': return state.count === 0 ? null : state.sum
    case 'avg': return state.count === 0 ? null : state.sum / state.count
    case 'min': return state.min
    case 'max': return state.max
  }
}

/** Each value seen weighs its encoded key (hex: two characters a byte) and an entry. */
async function* distinct(rows: Rows, fields: Expr[], ctx: EvalContext, held: Held): Rows {
  const seen = new Set<string>()
  for await (const row of rows) {
    const values = fields.map((f) => evaluate(f, row, ctx))
    const id = encodeKey(values).toString('hex')
    if (seen.has(id)) continue
    hold(held, id.length / 2 + entry_overhead_bytes, 'distinct')
    seen.add(id)
    const out: Row = {}
    fields.forEach((f, i) => { out[f.kind === 'field' ? (f.path.at(-1) as string) : `f${i}`] = values[i] ?? null })
    yield out
  }
}
