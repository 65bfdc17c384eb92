// Range reads and scans whose stages only filter, project, skip or take
// (`kv | where k >= $k | take 1000`, a scan page): rows are read, decoded and run
// through the stages a batch at a time, instead of one promise per row per stage
// through stages.ts's async generators (profiled: those, and the garbage they made,
// cost more than reading the rows). Streaming is kept: a take stops the reading, and
// between batches the loop yields to the event loop and checks the deadline, as
// access.ts does; within a batch, when the statement's pace says so (pace.ts), the
// batch ends at the row reached and the next read starts after it. The semantics are
// stages.ts's, row for row. Each row of the answer is counted against result_bytes_max
// as it is made (result-bytes.ts), and the rows a batch's lookups read are held only
// until the batch is passed on (lookup.ts).
import type { Stage, Value } from '../../lang/ast.js'
import { decodeRow, decodeRowAt, decodeRowColumnsAt, decodeRowFields, decodeRowFieldsAt } from '../../codec/index.js'
import type { Row } from './access.js'
import { QueryError } from '../errors.js'
import { evaluate, type EvalContext } from '../values/index.js'
import type { BatchLookup } from './lookup.js'
import { rowFieldsRead } from '../plan/index.js'
import { timedOut, type Pace } from '../pace/index.js'
import type { KeyRange } from '../plan/index.js'
import type { ResultBytes } from './result-bytes.js'
import { lookup_absent, type Entry, type TxnView } from '../../txn/index.js'

export interface BatchRead {
  /**
   * A transaction view, or a snapshot read as it is; with rangeLookup, a lookup by
   * primary key as the first stage is read with the range (BatchLookup.nativeField);
   * with rangeAt, the rows are read where they lie in a shared buffer.
   */
  view: Pick<TxnView, 'range'> & Partial<Pick<TxnView, 'rangeLookup' | 'rangeAt'>>
  tree: string
  range: KeyRange
  /** Read in descending key order. */
  reverse?: boolean
  stages: readonly Stage[]
  columns: readonly string[]
  eval: EvalContext
  examined: { rows: number }
  deadline_ms: number
  /** The tenant's statement_time_ms, when it set the deadline (pace.ts, `timedOut`). */
  time_limit_ms?: number
  rows_max: number
  /** Entries read per engine call, and between two yields to the event loop. */
  batch: number
  /** The lookup stages, ready to run, by their index in `stages` (only the async read runs lookups). */
  lookups?: ReadonlyMap<number, BatchLookup>
  /** Counts each row of the answer as it is made (none: a stream, whose caller takes the rows as they come). */
  result?: ResultBytes
  /** When to end a batch early and yield (only the async read yields). */
  pace?: Pace
}

/**
 * How many reads this process ran through readBatches. Its results equal stages.ts's
 * by design, so this count is the one way to see that a pipeline took this path
 * (test/query-batch-pipeline.test.ts).
 */
export const batch_pipeline_runs = { count: 0 }

/**
 * How many batches this process read with their first stage's lookup in one engine
 * call (Snapshot.rangeLookup): the same kind of count, for the same reason
 * (test/query-lookup-native.test.ts).
 */
export const native_lookup_batches = { count: 0 }

/**
 * How many batches this process ended early because the statement's pace said to yield
 * (pace.ts): each makes one more engine call, which a test counting calls adds back.
 */
export const paced_batch_ends = { count: 0 }

/** The output rows (at most rows_max) and whether more matched. */
export async function readBatches(read: BatchRead & { pace: Pace }): Promise<{ rows: Value[][]; truncated: boolean }> {
  batch_pipeline_runs.count += 1
  const out: Value[][] = []
  for (const state of batchSteps(read, out, columnValues(read.columns), selectColumns(read), passedAsStored(read))) {
    if (state !== 'next') return { rows: out, truncated: state === 'truncated' }
    await read.pace.yield()
  }
  return { rows: out, truncated: false }
}

/**
 * `readBatches` without yielding to the event loop (a prepared statement's `all`,
 * docs/api.md): the rows as `shape` makes them, at most rows_max, and whether more
 * matched. The deadline is still checked after each batch.
 */
export function readBatchesSync<T>(read: BatchRead, shape: (row: Row) => T): { rows: T[]; truncated: boolean } {
  batch_pipeline_runs.count += 1
  const out: T[] = []
  for (const state of batchSteps(read, out, shape)) {
    if (state !== 'next') return { rows: out, truncated: state === 'truncated' }
  }
  return { rows: out, truncated: false }
}

/**
 * Streams the rows through the stages a batch at a time for as long as the caller
 * pulls (a prepared statement's `iterate`), each batch as an array of rows shaped by
 * `shape` (one generator step per batch, not per row): no row limit and no deadline,
 * since the caller decides how far to read.
 */
export function* streamBatches<T>(read: Omit<BatchRead, 'rows_max' | 'deadline_ms'>, shape: (row: Row) => T): Generator<T[]> {
  batch_pipeline_runs.count += 1
  const out: T[] = []
  for (const state of batchSteps({ ...read, rows_max: Infinity, deadline_ms: Infinity }, out, shape)) {
    // The caller is done with a batch when it asks for the next: the array is reused.
    if (out.length > 0) yield out
    out.length = 0
    if (state !== 'next') return
  }
}

/**
 * `streamBatches` of rows as arrays of the output columns' values (a prepared
 * statement's `iterate({raw: true})`): made as readBatches makes its rows, so a row
 * read in place and passed as stored is decoded straight into its array.
 */
export function* streamRawBatches(read: Omit<BatchRead, 'rows_max' | 'deadline_ms'>): Generator<Value[][]> {
  batch_pipeline_runs.count += 1
  const whole: BatchRead = { ...read, rows_max: Infinity, deadline_ms: Infinity }
  const out: Value[][] = []
  for (const state of batchSteps(whole, out, columnValues(read.columns), selectColumns(whole), passedAsStored(whole))) {
    if (out.length > 0) yield out
    out.length = 0
    if (state !== 'next') return
  }
}

/** A row's output columns' values, in order. */
function columnValues(columns: readonly string[]): (row: Row) => Value[] {
  return (row) => {
    const values = new Array<Value>(columns.length)
    for (let j = 0; j < columns.length; j += 1) values[j] = row[columns[j] as string] ?? null
    return values
  }
}

/**
 * The reading loop itself: each step reads one batch into `out` (shaped by `shape`)
 * and says whether the read is `done`, `truncated` at rows_max, or goes on (`next`).
 */
/**
 * When the last stage is a select of exactly the output columns, in their order: the
 * output row of a row, made by the select's expressions, with no record in between.
 */
function selectColumns(read: BatchRead): ((row: Row) => Value[]) | null {
  const last = read.stages.at(-1)
  if (last?.kind !== 'select' || last.items.length !== read.columns.length || last.items.some((item, j) => item.name !== read.columns[j])) return null
  const { items } = last
  const ctx = read.eval
  return (row) => {
    const values = new Array<Value>(items.length)
    for (let j = 0; j < items.length; j += 1) values[j] = evaluate((items[j] as (typeof items)[number]).expr, row, ctx) ?? null
    return values
  }
}

/**
 * Whether the stages only skip and take (no lookups): each row that passes is output
 * as stored, its columns' values, so a batch read in place decodes it straight to the
 * output row (for a shape that makes the columns): no record per row in between,
 * garbage that the young generation's scavenges made survive (docs/performance.md, P12).
 */
function passedAsStored(read: BatchRead): boolean {
  return read.stages.every((stage) => stage.kind === 'skip' || stage.kind === 'take') && (read.lookups === undefined || read.lookups.size === 0)
}

/**
 * `fused`: selectColumns' output row, for a shape that makes the columns; runRows then
 * leaves the last stage (that select) to it. `asStored`: passedAsStored's answer, for
 * such a shape.
 */
function* batchSteps<T>(read: BatchRead, out: T[], shape: (row: Row) => T, fused: ((row: Row) => T) | null = null, asStored = false): Generator<'next' | 'done' | 'truncated'> {
  const { view, tree, stages, eval: ctx } = read
  const startExamined = read.examined.rows
  // How many rows each skip has dropped and each take has passed so far.
  const counts = stages.map(() => 0)
  const limits = stages.map((stage) => (stage.kind === 'skip' || stage.kind === 'take' ? evaluate(stage.count, {}, ctx) as number : 0))
  if (stages.some((stage, i) => stage.kind === 'take' && limits[i] === 0)) return 'done'
  let bounds: KeyRange = read.range
  // Entries a first batch needs at most: with only skips, selects and lookups that drop
  // no row before a take, no more than they pass (`kv | take 10` reads 10, not a whole
  // batch; nor does a `lookup many` before it look up a thousand rows' matches).
  let needed = Infinity
  let skipped = 0
  for (const [i, stage] of stages.entries()) {
    if (stage.kind === 'skip') skipped += limits[i] as number
    else if (stage.kind === 'take') { needed = skipped + (limits[i] as number); break }
    else if (stage.kind !== 'select' && !(stage.kind === 'lookup' && !stage.inner)) break
  }
  const batch: Batch<T> = { read, counts, limits, out, shape, fused, made: false, paused: -1 }
  const first = read.lookups?.get(0)
  const join = stages[0]?.kind === 'lookup' && first !== undefined && first.nativeField !== null && view.rangeLookup !== undefined ? first : null
  // Without lookups, or with only one whose matches come with the rows, each row goes
  // through all the stages at once (runRows); else segment by segment (runBatch).
  const lookupsAfter = stages.some((stage, i) => stage.kind === 'lookup' && i > 0)
  // The fields of each row the stages read: the others are stepped over, not decoded.
  // A batch read with its lookup needs no lookup field; one read without it (the
  // transaction wrote either tree) does.
  const wantedJoined = join === null ? null : rowFieldsRead(stages, true)
  const wanted = rowFieldsRead(stages, false)
  const run = (rows: BatchRows): 'next' | 'done' | 'truncated' => (lookupsAfter || (stages[0]?.kind === 'lookup' && rows.joined === null) ? runBatch(batch, rows) : runRows(batch, rows))
  for (;;) {
    const request = Math.min(read.batch, Math.max(needed - (read.examined.rows - startExamined), 1))
    const options = { ...bounds, limit: request, reverse: read.reverse === true }
    // With its lookup, when the view allows (it has not written either tree).
    const joined = join === null ? null : (view.rangeLookup as TxnView['rangeLookup'])(tree, options, join.nativeField as string, join.tree)
    // Else in place, when the view allows (it has not written the tree).
    const inPlace = joined !== null || view.rangeAt === undefined ? null : view.rangeAt(tree, options)
    let state: 'next' | 'done' | 'truncated'
    let got: number
    let last: Buffer | undefined
    batch.paused = -1
    if (joined !== null && join !== null) {
      native_lookup_batches.count += 1
      const { buf, at } = joined
      state = run({
        count: joined.count,
        row: wantedJoined === null
          ? (k) => decodeRowAt(buf, at[6 * k + 2] as number, at[6 * k + 3] as number) as Row
          : (k) => decodeRowFieldsAt(buf, at[6 * k + 2] as number, at[6 * k + 3] as number, wantedJoined) as Row,
        joined: (k) => (at[6 * k + 4] === lookup_absent ? null : join.decodeAt(buf, at[6 * k + 4] as number, at[6 * k + 5] as number)),
      })
      got = joined.count
      // The last entry run; a copy: the batch's buffer is the next batch's (Snapshot.rangeLookup).
      const end = batch.paused >= 0 ? batch.paused : got - 1
      last = got === 0 ? undefined : Buffer.from(buf.subarray(at[6 * end], at[6 * end + 1]))
    } else if (inPlace !== null) {
      // Read where they lie: no Buffer views per row (docs/performance.md, P12).
      const { buf, at, count } = inPlace
      const { columns } = read
      batch.made = asStored
      state = run({
        count,
        row: asStored
          ? (k) => decodeRowColumnsAt(buf, at[4 * k + 2] as number, at[4 * k + 3] as number, columns) as unknown as Row
          : wanted === null
          ? (k) => decodeRowAt(buf, at[4 * k + 2] as number, at[4 * k + 3] as number) as Row
          : (k) => decodeRowFieldsAt(buf, at[4 * k + 2] as number, at[4 * k + 3] as number, wanted) as Row,
        joined: null,
      })
      got = count
      const end = batch.paused >= 0 ? batch.paused : got - 1
      // A copy: the batch's buffer is the next batch's (Snapshot.rangeAt).
      last = got === 0 ? undefined : Buffer.from(buf.subarray(at[4 * end], at[4 * end + 1]))
    } else {
      const entries = view.range(tree, options)
      const row = wanted === null ? (k: number) => decodeRow((entries[k] as Entry)[1]) as Row : (k: number) => decodeRowFields((entries[k] as Entry)[1], wanted) as Row
      state = run({ count: entries.length, row, joined: null })
      got = entries.length
      last = (batch.paused >= 0 ? entries[batch.paused] : entries.at(-1))?.[0]
    }
    batch.made = false
    if (batch.paused >= 0) paced_batch_ends.count += 1
    // The batch's rows are the answer's now, or dropped: what its lookups read is let go.
    if (read.lookups !== undefined) for (const lookup of read.lookups.values()) lookup.release()
    if (state !== 'next') {
      yield state
      return
    }
    if (Date.now() > read.deadline_ms) throw timedOut(read.time_limit_ms)
    // Its rows examined too, once a batch: a statement stops within a batch of its limit.
    read.pace?.check()
    // A batch ended early is read on after its last row run, whatever the read returned.
    if (last === undefined || (batch.paused < 0 && got < request)) {
      yield 'done'
      return
    }
    bounds = read.reverse === true ? { ...bounds, upper: last, upperInclusive: false } : { ...bounds, lower: last, lowerInclusive: false }
    yield 'next'
  }
}

interface Batch<T> {
  read: BatchRead
  counts: number[]
  limits: number[]
  out: T[]
  shape: (row: Row) => T
  /** The shape of a row before its last stage, a select of the columns (selectColumns), or null. */
  fused: ((row: Row) => T) | null
  /** The batch's rows are decoded as output rows already (passedAsStored). */
  made: boolean
  /** The entry after which the batch ended early for the pace (its later entries are read again), or -1. */
  paused: number
}

/** One batch of rows read: how many, each decoded when reached, and the first stage's lookup matches when they were read with them. */
interface BatchRows {
  count: number
  row(k: number): Row
  /** Entry k's match (a lookup by primary key finds one row or none). */
  joined: ((k: number) => Row | null) | null
}

/**
 * Runs one batch of rows through the stages a row at a time, each row through all of
 * them before the next (no arrays of rows between stages): for stages without lookups,
 * or whose only lookup is the first stage and came with the rows (BatchRows.joined).
 * The outcome is runBatch's, which stages.ts's is.
 */
function runRows<T>(batch: Batch<T>, source: BatchRows): 'next' | 'done' | 'truncated' {
  const { read, out, shape, fused } = batch
  const { stages } = read
  const joined = source.joined
  const lookup = joined === null ? undefined : read.lookups?.get(0)
  if (joined !== null && lookup === undefined) throw new Error('rows came with lookups that no stage asked for')
  const step: RowStep = { row: {}, passed: true, done: false }
  let examined = 0
  let state: 'next' | 'done' | 'truncated' = 'next'
  for (let k = 0; k < source.count; k += 1) {
    // A failure is the query's at once: no earlier row stopped the read.
    step.row = source.row(k)
    step.passed = true
    step.done = false
    examined += 1
    if (lookup !== undefined) {
      const match = (joined as (k: number) => Row | null)(k)
      if (match !== null) examined += 1
      step.passed = lookup.addOne(step.row, match)
    }
    runStages(batch, step, lookup === undefined ? 0 : 1, fused === null ? stages.length : stages.length - 1)
    if (step.passed) {
      if (out.length === read.rows_max) {
        state = 'truncated'
        break
      }
      const made = batch.made ? step.row as unknown as T : fused === null ? shape(step.row) : fused(step.row)
      read.result?.add(made as Value)
      out.push(made)
    }
    if (step.done) {
      state = 'done'
      break
    }
    if (read.pace?.due() === true && k < source.count - 1) {
      batch.paused = k
      break
    }
  }
  read.examined.rows += examined
  return state
}

/** A row going through stages: replaced by a select, dropped (not passed), or the last a take lets through (done). */
interface RowStep {
  row: Row
  passed: boolean
  done: boolean
}

/** Runs stages [from, to) of the read on `step.row`, until one drops it. */
function runStages<T>(batch: Batch<T>, step: RowStep, from: number, to: number): void {
  const { read, counts, limits } = batch
  const { stages, eval: ctx } = read
  for (let s = from; s < to && step.passed; s += 1) {
    const stage = stages[s] as Stage
    switch (stage.kind) {
      case 'where': step.passed = evaluate(stage.predicate, step.row, ctx) === true; break
      case 'select': {
        const projected: Row = {}
        for (let j = 0; j < stage.items.length; j += 1) {
          const item = stage.items[j] as (typeof stage.items)[number]
          projected[item.name] = evaluate(item.expr, step.row, ctx)
        }
        step.row = projected
        break
      }
      case 'skip': step.passed = (counts[s] as number)++ >= (limits[s] as number); break
      case 'take':
        counts[s] = (counts[s] as number) + 1
        // The row that reaches the limit still passes; nothing after it can.
        if (counts[s] === limits[s]) step.done = true
        break
      default: break // get is an access path, never in a range read
    }
  }
}

/**
 * Runs one batch of entries through the stages, segment by segment: the stages up to a
 * lookup run row by row over the whole batch, then the lookup reads the matches of
 * every row that reached it at once, then the next segment. The outcome is the
 * row-at-a-time one (stages.ts): a segment stops at a row where a take is reached (no
 * later row is read, no later lookup counted), a failure at a row is raised only if no
 * earlier row stops the read first (a later segment's take or the result's bound),
 * and the rows examined are those the row-at-a-time read would have read.
 */
function runBatch<T>(batch: Batch<T>, source: BatchRows): 'next' | 'done' | 'truncated' {
  const { read, out, shape } = batch
  const { stages } = read
  const step: RowStep = { row: {}, passed: true, done: false }
  // The last entry the row-at-a-time read would reach: a take reached, or the bound of the result.
  let stop = source.count - 1
  let state: 'next' | 'done' | 'truncated' = 'next'
  let failure: { error: unknown; at: number } | null = null
  // Rows read by lookups, by the entry they were read for.
  const lookedUp = read.lookups === undefined || read.lookups.size === 0 ? null : new Uint32Array(source.count)
  let rows: Row[] = []
  let at: number[] = []
  let from = 0
  for (let first = true; ; first = false) {
    let to = from
    while (to < stages.length && stages[to]?.kind !== 'lookup') to += 1
    const lookup = to < stages.length ? read.lookups?.get(to) : undefined
    if (to < stages.length && lookup === undefined) throw new Error('a lookup stage reached the batch path without its reader')
    const passedRows: Row[] = []
    const passedAt: number[] = []
    const values: Value[] = []
    const count = first ? source.count : rows.length
    // The first stage is a lookup whose matches came with the rows.
    const joined = first && to === 0 ? source.joined : null
    for (let k = 0; k < count; k += 1) {
      const i = first ? k : (at[k] as number)
      if (i > stop) break
      try {
        step.row = first ? source.row(k) : rows[k] as Row
        step.passed = true
        step.done = false
        runStages(batch, step, from, to)
        if (step.passed) {
          if (lookup !== undefined && joined === null) values.push(lookup.value(step.row))
          passedRows.push(step.row)
          passedAt.push(i)
        }
      } catch (error) {
        // Raised only if nothing stops the read before this row (checked below).
        failure = { error, at: i }
        break
      }
      if (step.done) {
        stop = i
        state = 'done'
        break
      }
      // Only in the first segment: no stage has counted a later entry yet (skip, take).
      if (first && read.pace?.due() === true && i < source.count - 1) {
        stop = i
        batch.paused = i
        break
      }
    }
    rows = passedRows
    at = passedAt
    if (lookup === undefined) break
    const found = joined === null ? lookup.matches(values, false) : at.map((i) => { const match = joined(i); return match === null ? [] : [match] })
    const kept: Row[] = []
    const keptAt: number[] = []
    for (let k = 0; k < rows.length; k += 1) {
      const row = rows[k] as Row
      const matches = found[k] as Row[]
      const i = at[k] as number
      if (lookup.reads && lookedUp !== null) lookedUp[i] = (lookedUp[i] as number) + matches.length
      if (lookup.add(row, matches)) {
        kept.push(row)
        keptAt.push(i)
      }
    }
    rows = kept
    at = keptAt
    from = to + 1
  }
  for (let k = 0; k < rows.length; k += 1) {
    const row = rows[k] as Row
    const i = at[k] as number
    if (i > stop) break
    if (out.length === read.rows_max) {
      stop = i
      state = 'truncated'
      break
    }
    const made = shape(row)
    read.result?.add(made as Value)
    out.push(made)
  }
  // A failure at a row the read reaches is the query's; one past a stop never happened.
  if (failure !== null && failure.at <= stop) throw failure.error
  const reached = Math.min(stop, source.count - 1)
  let examined = reached + 1
  if (lookedUp !== null) for (let i = 0; i <= reached; i += 1) examined += lookedUp[i] as number
  read.examined.rows += examined
  return state
}
