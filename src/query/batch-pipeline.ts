// Range reads and scans whose stages only filter, project, skip or take
// (`kv | where k >= $k | take 1000`, a scan page): rows are read, decoded and run
// through the stages a batch at a time, instead of one promise per row per stage
// through stages.ts's async generators (profiled: those, and the garbage they made,
// cost more than reading the rows). Streaming is kept: a take stops the reading, and
// between batches the loop yields to the event loop and checks the deadline, as
// access.ts does. The semantics are stages.ts's, row for row.
import type { Stage, Value } from '../lang/ast.js'
import { decodeRow } from '../codec/index.js'
import { checkDeadline, type Row } from './access.js'
import { QueryError } from './errors.js'
import { evaluate, type EvalContext } from './evaluate.js'
import type { BatchLookup } from './lookup.js'
import type { KeyRange } from './plan.js'
import type { Entry, TxnView } from '../txn/index.js'

export interface BatchRead {
  /** A transaction view, or a snapshot read as it is. */
  view: Pick<TxnView, 'range'>
  tree: string
  range: KeyRange
  /** Read in descending key order. */
  reverse?: boolean
  stages: readonly Stage[]
  columns: readonly string[]
  eval: EvalContext
  examined: { rows: number }
  deadline_ms: number
  rows_max: number
  /** Entries read per engine call, and between two yields to the event loop. */
  batch: number
  /** The lookup stages, ready to run, by their index in `stages` (only the async read runs lookups). */
  lookups?: ReadonlyMap<number, BatchLookup>
}

/**
 * How many reads this process ran through readBatches. Its results equal stages.ts's
 * by design, so this count is the one way to see that a pipeline took this path
 * (test/query-batch-pipeline.test.ts).
 */
export const batch_pipeline_runs = { count: 0 }

/** The output rows (at most rows_max) and whether more matched. */
export async function readBatches(read: BatchRead): Promise<{ rows: Value[][]; truncated: boolean }> {
  batch_pipeline_runs.count += 1
  const out: Value[][] = []
  for (const state of batchSteps(read, out, (row) => read.columns.map((c) => row[c] ?? null))) {
    if (state !== 'next') return { rows: out, truncated: state === 'truncated' }
    await checkDeadline(read.deadline_ms)
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
 * The reading loop itself: each step reads one batch into `out` (shaped by `shape`)
 * and says whether the read is `done`, `truncated` at rows_max, or goes on (`next`).
 */
function* batchSteps<T>(read: BatchRead, out: T[], shape: (row: Row) => T): Generator<'next' | 'done' | 'truncated'> {
  const { view, tree, stages, eval: ctx } = read
  const startExamined = read.examined.rows
  // How many rows each skip has dropped and each take has passed so far.
  const counts = stages.map(() => 0)
  const limits = stages.map((stage) => (stage.kind === 'skip' || stage.kind === 'take' ? evaluate(stage.count, {}, ctx) as number : 0))
  if (stages.some((stage, i) => stage.kind === 'take' && limits[i] === 0)) return 'done'
  let bounds: KeyRange = read.range
  // Entries a first batch needs at most: with only skips and selects before a take, no
  // more than they pass (`kv | take 10` reads 10, not a whole batch).
  let needed = Infinity
  let skipped = 0
  for (const [i, stage] of stages.entries()) {
    if (stage.kind === 'skip') skipped += limits[i] as number
    else if (stage.kind === 'take') { needed = skipped + (limits[i] as number); break }
    else if (stage.kind !== 'select') break
  }
  const batch: Batch<T> = { read, counts, limits, out, shape }
  for (;;) {
    const request = Math.min(read.batch, Math.max(needed - (read.examined.rows - startExamined), 1))
    const entries = view.range(tree, { ...bounds, limit: request, reverse: read.reverse === true })
    const state = runBatch(batch, entries)
    if (state !== 'next') {
      yield state
      return
    }
    if (Date.now() > read.deadline_ms) throw new QueryError('query_timeout', 'the query ran past its time limit')
    const last = entries.at(-1)
    if (last === undefined || entries.length < request) {
      yield 'done'
      return
    }
    bounds = read.reverse === true ? { ...bounds, upper: last[0], upperInclusive: false } : { ...bounds, lower: last[0], lowerInclusive: false }
    yield 'next'
  }
}

interface Batch<T> {
  read: BatchRead
  counts: number[]
  limits: number[]
  out: T[]
  shape: (row: Row) => T
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
function runBatch<T>(batch: Batch<T>, entries: readonly Entry[]): 'next' | 'done' | 'truncated' {
  const { read, counts, limits, out, shape } = batch
  const { stages, eval: ctx } = read
  // The last entry the row-at-a-time read would reach: a take reached, or the bound of the result.
  let stop = entries.length - 1
  let state: 'next' | 'done' | 'truncated' = 'next'
  let failure: { error: unknown; at: number } | null = null
  // Rows read by lookups, by the entry they were read for.
  const lookedUp: number[] = []
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
    const count = first ? entries.length : rows.length
    for (let k = 0; k < count; k += 1) {
      const i = first ? k : (at[k] as number)
      if (i > stop) break
      let passed = true
      let done = false
      try {
        let row = first ? decodeRow((entries[k] as Entry)[1]) as Row : rows[k] as Row
        for (let s = from; s < to && passed; s += 1) {
          const stage = stages[s] as Stage
          switch (stage.kind) {
            case 'where': passed = evaluate(stage.predicate, row, ctx) === true; break
            case 'select': {
              const projected: Row = {}
              for (const item of stage.items) projected[item.name] = evaluate(item.expr, row, ctx)
              row = projected
              break
            }
            case 'skip': passed = (counts[s] as number)++ >= (limits[s] as number); break
            case 'take':
              counts[s] = (counts[s] as number) + 1
              // The row that reaches the limit still passes; nothing after it can.
              if (counts[s] === limits[s]) done = true
              break
            default: break // get is an access path, never in a range read
          }
        }
        if (passed) {
          if (lookup !== undefined) values.push(lookup.value(row))
          passedRows.push(row)
          passedAt.push(i)
        }
      } catch (error) {
        // Raised only if nothing stops the read before this row (checked below).
        failure = { error, at: i }
        break
      }
      if (done) {
        stop = i
        state = 'done'
        break
      }
    }
    rows = passedRows
    at = passedAt
    if (lookup === undefined) break
    const found = lookup.matches(values, false)
    const kept: Row[] = []
    const keptAt: number[] = []
    for (const [k, row] of rows.entries()) {
      const matches = found[k] as Row[]
      const i = at[k] as number
      if (lookup.reads) lookedUp[i] = (lookedUp[i] ?? 0) + matches.length
      if (lookup.add(row, matches)) {
        kept.push(row)
        keptAt.push(i)
      }
    }
    rows = kept
    at = keptAt
    from = to + 1
  }
  for (const [k, row] of rows.entries()) {
    const i = at[k] as number
    if (i > stop) break
    if (out.length === read.rows_max) {
      stop = i
      state = 'truncated'
      break
    }
    out.push(shape(row))
  }
  // A failure at a row the read reaches is the query's; one past a stop never happened.
  if (failure !== null && failure.at <= stop) throw failure.error
  const reached = Math.min(stop, entries.length - 1)
  let examined = reached + 1
  for (let i = 0; i <= reached; i += 1) examined += lookedUp[i] ?? 0
  read.examined.rows += examined
  return state
}
