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
import type { KeyRange } from './plan.js'
import type { TxnView } from '../txn/index.js'

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
  const { view, tree, stages, eval: ctx, examined } = read
  const startExamined = examined.rows
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
  for (;;) {
    const request = Math.min(read.batch, Math.max(needed - (examined.rows - startExamined), 1))
    const entries = view.range(tree, { ...bounds, limit: request, reverse: read.reverse === true })
    for (const [, value] of entries) {
      examined.rows += 1
      let row = decodeRow(value) as Row
      let passed = true
      let done = false
      for (let i = 0; i < stages.length && passed; i += 1) {
        const stage = stages[i] as Stage
        switch (stage.kind) {
          case 'where': passed = evaluate(stage.predicate, row, ctx) === true; break
          case 'select': {
            const projected: Row = {}
            for (const item of stage.items) projected[item.name] = evaluate(item.expr, row, ctx)
            row = projected
            break
          }
          case 'skip': passed = (counts[i] as number)++ >= (limits[i] as number); break
          case 'take':
            counts[i] = (counts[i] as number) + 1
            // The row that reaches the limit still passes; nothing after it can.
            if (counts[i] === limits[i]) done = true
            break
          default: break // get is an access path, never in a range read
        }
      }
      if (passed) {
        if (out.length === read.rows_max) {
          yield 'truncated'
          return
        }
        out.push(shape(row))
      }
      if (done) {
        yield 'done'
        return
      }
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
