// Pipelines that read a few rows by primary key (`kv | get $k`, `where id == $x`,
// `where id in [...]`) and only filter, project, skip or take them: run without the
// streaming machinery. A point query reads at most as many rows as it names keys, so
// there is nothing to stream, no batch to yield after and no deadline worth a clock
// read per row; on the P3 path the async generators of stages.ts cost more than the
// read itself. The semantics are stages.ts's, row for row.
import type { Expr, Stage } from '../../lang/ast.js'
import { decodeRow } from '../../codec/index.js'
import type { Row } from './access.js'
import { evaluate, type EvalContext } from '../values/index.js'
import type { TxnView } from '../../txn/index.js'

const simple: ReadonlySet<Stage['kind']> = new Set(['get', 'where', 'select', 'skip', 'take'])

/** Whether `readPoints` can run these stages (every one filters, projects, skips or takes). */
export function pointStagesOnly(stages: readonly Stage[]): boolean {
  for (const stage of stages) if (!simple.has(stage.kind)) return false
  return true
}

/** The rows at `keys` (absent ones skipped) run through `stages`, at most `rows_max` + 1 of them. */
export function readPoints(view: Pick<TxnView, 'get'>, tree: string, keys: readonly Buffer[], stages: readonly Stage[], ctx: EvalContext, examined: { rows: number }): Row[] {
  let rows: Row[] = []
  for (const key of keys) {
    const value = view.get(tree, key)
    if (value === null) continue
    examined.rows += 1
    rows.push(decodeRow(value) as Row)
  }
  for (const stage of stages) rows = apply(rows, stage, ctx)
  return rows
}

function apply(rows: Row[], stage: Stage, ctx: EvalContext): Row[] {
  switch (stage.kind) {
    case 'where': return rows.filter((row) => evaluate(stage.predicate, row, ctx) === true)
    case 'select': return rows.map((row) => {
      const out: Row = {}
      for (const item of stage.items) out[item.name] = evaluate(item.expr, row, ctx)
      return out
    })
    case 'skip': return rows.slice(count(stage.count, ctx))
    case 'take': return rows.slice(0, count(stage.count, ctx))
    default: return rows // get is the access path itself
  }
}

function count(expr: Expr, ctx: EvalContext): number {
  return evaluate(expr, {}, ctx) as number
}
