// Runs a checked statement against a transaction view. Reads stream; writes go into
// the view and are committed by the caller (run.ts, through the committer) as one
// engine commit. Every row of the answer is counted as it is made (result_bytes_max),
// and what stages hold is charged to the statement's memory (statement_memory_bytes_max):
// docs/api.md, "Size of an answer".
import type { SelectItem, Stage, Value } from '../../lang/ast.js'
import type { CollectionIR, SchemaIR } from '../../schema/ir.js'
import { batchLookup, lookupHint, lookupRows, type BatchLookup, type LookupEnv } from './lookup.js'
import { lookupFieldsRead } from '../plan/index.js'
import { withoutAnswered } from '../plan/index.js'
import { readRows, type Row } from './access.js'
import type { CheckedStatement } from '../check/index.js'
import { returningItems } from '../check/index.js'
import { evaluate, type EvalContext } from '../values/index.js'
import { plan, type PlanHint } from '../plan/index.js'
import { pointStagesOnly, readPoints } from './point-pipeline.js'
import { readBatches } from './batch-pipeline.js'
import type { QueryResult } from './result.js'
import { applyStage } from './stages.js'
import type { ResultBytes } from './result-bytes.js'
import type { StatementMemory } from './statement-memory.js'
import type { Pace } from '../pace/index.js'
import { point_read_keys_at_once_max } from '../../limits.js'
import type { AutoIds, TxnView } from '../../txn/index.js'
import { deleteRows, insertRows, updateRows, type WriteContext } from '../write/index.js'

export interface ExecuteContext {
  view: TxnView
  schema: SchemaIR
  tenant: string
  eval: EvalContext
  deadline_ms: number
  /** The tenant's statement_time_ms, when it set the deadline (pace.ts, `timedOut`). */
  time_limit_ms?: number
  /** When the statement yields to the event loop, and its deadline (pace.ts). */
  pace: Pace
  rows_max: number
  examined: { rows: number }
  ids: AutoIds
  lookup_hash_bytes_max: number
  /** The answer's rows so far, an atomic block's statements' together. */
  result: ResultBytes
  memory: StatementMemory
}

export type StatementResult = Omit<QueryResult, 'stats' | 'lsn' | 'results'> & { writes: boolean }

export async function execute(statement: CheckedStatement, ctx: ExecuteContext): Promise<StatementResult> {
  // The time limit counts from before the text was parsed: parsing and checking count too.
  ctx.pace.check()
  switch (statement.kind) {
    case 'pipeline':
      return runPipeline(statement.collection, statement.stages, statement.output.columns, ctx)
    case 'insert': case 'upsert':
      return executeInsert(statement, ctx)
    case 'explain': {
      const inner = statement.statement
      const hint = inner.kind === 'pipeline' ? planFor(inner.collection, inner.stages, ctx).hint : undefined
      const shown = hint === undefined ? 'write' : `${hint.access}${hint.index === undefined ? '' : ` ${hint.index}`} on ${hint.collection}`
      return { columns: ['plan'], rows: [[shown]], ...(hint === undefined ? {} : { plan: hint }), writes: false }
    }
    case 'atomic': {
      const results: StatementResult[] = []
      for (const inner of statement.statements) results.push(await execute(inner, ctx))
      const last = results.at(-1) ?? { columns: [], rows: [], writes: false }
      // The answer holds the last statement's rows twice: as its `rows`, and in `results`.
      for (const row of last.rows) ctx.result.add(row)
      return {
        ...last,
        results: results.map(({ writes: _, ...r }) => r),
        writes: results.some((r) => r.writes),
      } as StatementResult
    }
  }
}

/** `affected`, or with `returning` the written rows (after the write; a delete's as they were) projected. */
/** An insert or upsert, which runs synchronously (a prepared statement's `runSync`); the caller checks the pace first, as `execute` does. */
export function executeInsert(statement: Extract<CheckedStatement, { kind: 'insert' | 'upsert' }>, ctx: ExecuteContext): StatementResult {
  const value = evaluate(statement.rows, {}, ctx.eval)
  const records: Value[] = Array.isArray(value) ? value : [value]
  const written: Row[] | undefined = statement.returning === null ? undefined : []
  const affected = insertRows(writeContext(ctx), statement.collection, records, statement.kind, written)
  return writeResult(affected, statement.returning, written, ctx)
}

function writeResult(affected: number, returning: SelectItem[] | null, written: Row[] | undefined, ctx: ExecuteContext): StatementResult {
  if (returning === null || written === undefined) return { columns: ['affected'], rows: [[affected]], writes: true }
  const shown = written.length > ctx.rows_max ? written.slice(0, ctx.rows_max) : written
  const rows = shown.map((row) => {
    const values = returning.map((item) => evaluate(item.expr, row, ctx.eval))
    ctx.result.add(values)
    return values
  })
  return { columns: returning.map((item) => item.name), rows, ...(written.length > ctx.rows_max ? { truncated: true } : {}), writes: true }
}

function writeContext(ctx: ExecuteContext): WriteContext {
  return { view: ctx.view, tenant: ctx.tenant, schema: ctx.schema, now: ctx.eval.now, ids: ctx.ids }
}

function planFor(collection: CollectionIR, stages: Stage[], ctx: ExecuteContext) {
  const chosen = plan(ctx.tenant, collection, stages, ctx.eval)
  const lookups = stages.flatMap((s) => (s.kind === 'lookup' ? [lookupHint(ctx.schema, s)] : []))
  return lookups.length === 0 ? chosen : { ...chosen, hint: { ...chosen.hint, lookups } }
}

/** Whether the batch path runs these stages: filters, projections, skips, takes and lookups. */
function batchStagesOnly(stages: readonly Stage[]): boolean {
  return stages.every((stage) => pointStagesOnly([stage]) || stage.kind === 'lookup')
}

/**
 * The lookup stages made ready, by index, as the streaming stages would make them: the
 * skip and take counts are evaluated first (stages.ts does so as it builds the chain),
 * then each lookup from the last to the first, except one a take of 0 follows (the
 * streaming read never pulls it, so its hash table is never built).
 */
async function batchLookups(stages: readonly Stage[], env: LookupEnv, collection: CollectionIR): Promise<Map<number, BatchLookup>> {
  const lookups = new Map<number, BatchLookup>()
  let takeZero = false
  const counts = stages.map((stage) => (stage.kind === 'skip' || stage.kind === 'take' ? evaluate(stage.count, {}, env.eval) : null))
  for (let i = stages.length - 1; i >= 0; i -= 1) {
    const stage = stages[i] as Stage
    if (stage.kind === 'take' && counts[i] === 0) takeZero = true
    // The first stage's rows come straight from the collection's tree (BatchLookup.nativeField).
    if (stage.kind === 'lookup' && !takeZero) lookups.set(i, await batchLookup(stage, env, lookupFieldsRead(stages, i), i === 0 ? collection : null))
  }
  return lookups
}

async function runPipeline(collection: CollectionIR, allStages: Stage[], columns: string[], ctx: ExecuteContext): Promise<StatementResult> {
  const chosen = planFor(collection, allStages, ctx)
  ctx.pace.check()
  // A sort the access path's order stands in for is not run (tree-order.ts).
  // Nor the conjuncts of a leading where that a primary-key range answers (answered.ts).
  const stages = withoutAnswered(chosen.sorted === undefined ? allStages : allStages.filter((_, i) => i !== chosen.sorted), chosen.answered)
  // Many keys (a long `in` list) are read as a range is, yielding as they go.
  if (chosen.access.kind === 'points' && chosen.access.keys.length <= point_read_keys_at_once_max && pointStagesOnly(stages)) {
    const found = readPoints(ctx.view, chosen.access.tree, chosen.access.keys, stages, ctx.eval, ctx.examined)
    const truncated = found.length > ctx.rows_max
    const out = (truncated ? found.slice(0, ctx.rows_max) : found).map((row) => {
      const values = columns.map((c) => row[c] ?? null)
      ctx.result.add(values)
      return values
    })
    return { columns, rows: out, plan: chosen.hint, ...(truncated ? { truncated } : {}), writes: false }
  }
  const env = { view: ctx.view, tenant: ctx.tenant, schema: ctx.schema, eval: ctx.eval, examined: ctx.examined, pace: ctx.pace, hash_bytes_max: ctx.lookup_hash_bytes_max, memory: ctx.memory }
  if (chosen.access.kind === 'range' && batchStagesOnly(stages)) {
    const lookups = await batchLookups(stages, env, collection)
    const { rows: out, truncated } = await readBatches({
      view: ctx.view, tree: chosen.access.tree, range: chosen.access.range, reverse: chosen.access.reverse === true, stages, columns, eval: ctx.eval,
      examined: ctx.examined, deadline_ms: ctx.deadline_ms, ...(ctx.time_limit_ms === undefined ? {} : { time_limit_ms: ctx.time_limit_ms }), pace: ctx.pace, rows_max: ctx.rows_max, batch: 1000, lookups, result: ctx.result,
    })
    return { columns, rows: out, plan: chosen.hint, ...(truncated ? { truncated } : {}), writes: false }
  }
  let rows: AsyncIterable<Row> = readRows(chosen.access, {
    view: ctx.view,
    tenant: ctx.tenant,
    collection: collection.name,
    examined: ctx.examined,
    pace: ctx.pace,
    // Each row then flows through the stages one by one: a batch of 1000 read and
    // decoded at once held the loop 5 ms and more (P18, docs/performance.md).
    batch: 256,
  })
  const sink = stages.at(-1)
  const flowing = sink?.kind === 'update' || sink?.kind === 'delete' ? stages.slice(0, -1) : stages
  // A read takes rows_max rows and one more (which says it was truncated); a write all of them.
  const stageEnv = { eval: ctx.eval, memory: ctx.memory, pace: ctx.pace, rows_taken_max: flowing === stages ? ctx.rows_max + 1 : Infinity, lookup: (input: AsyncIterable<Row>, lookup: Stage & { kind: 'lookup' }) => lookupRows(input, lookup, env) }
  flowing.forEach((stage, i) => {
    rows = applyStage(rows, stage, flowing.slice(i + 1), stageEnv)
  })
  if (sink?.kind === 'update' || sink?.kind === 'delete') {
    const matched: Row[] = []
    for await (const row of rows) matched.push(row)
    const write = writeContext(ctx)
    const returning = returningItems(sink.returning, collection)
    const written: Row[] | undefined = returning === null ? undefined : sink.kind === 'update' ? [] : matched
    const affected = sink.kind === 'update' ? updateRows(write, collection, matched, sink.set, ctx.eval, written) : deleteRows(write, collection, matched)
    return { ...writeResult(affected, returning, written, ctx), plan: chosen.hint }
  }
  const out: Value[][] = []
  let truncated = false
  for await (const row of rows) {
    if (out.length === ctx.rows_max) {
      truncated = true
      break
    }
    const values = columns.map((c) => row[c] ?? null)
    ctx.result.add(values)
    out.push(values)
    if (ctx.pace.due()) await ctx.pace.yield()
  }
  const hint: PlanHint = chosen.hint
  return { columns, rows: out, plan: hint, ...(truncated ? { truncated } : {}), writes: false }
}
