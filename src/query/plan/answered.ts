// The stages left to run once the access path has answered some conjuncts of the
// leading `where` stages (plan.ts). A key range on the primary key reads only rows
// that satisfy its bounds: within one kind the key encoding orders values as
// compareValues does, and the range keeps to the bound's kind (src/codec/key.ts,
// key-range.ts). So evaluating those conjuncts again on every row read changes nothing,
// and it was a fifth of a range read (docs/performance.md, P5). What is left of a
// `where` runs as before, on the same rows.
import type { Expr, Stage } from '../../lang/ast.js'

/** The conjuncts of `a and b and …`, in order. */
export function conjuncts(expr: Expr, out: Expr[] = []): Expr[] {
  if (expr.kind === 'binary' && expr.op === 'and') {
    conjuncts(expr.left, out)
    conjuncts(expr.right, out)
  } else {
    out.push(expr)
  }
  return out
}

/** `stages` without the `answered` conjuncts of their leading `where` stages (a `where` left with none is dropped). */
export function withoutAnswered(stages: Stage[], answered: readonly Expr[] | undefined): Stage[] {
  if (answered === undefined || answered.length === 0) return stages
  const skip = new Set(answered)
  const out: Stage[] = []
  let leading = true
  for (const stage of stages) {
    if (leading && stage.kind === 'where') {
      const rest = conjuncts(stage.predicate).filter((c) => !skip.has(c))
      const first = rest[0]
      if (first !== undefined) {
        const predicate = rest.slice(1).reduce<Expr>((left, right) => ({ kind: 'binary', op: 'and', left, right, span: stage.span }), first)
        out.push({ ...stage, predicate })
      }
      continue
    }
    leading = false
    out.push(stage)
  }
  return out
}
