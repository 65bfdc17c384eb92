// Which fields of a lookup's rows the rest of the pipeline reads, so the lookup decodes
// only those from each row it finds (docs/performance.md, P15: decoding every field of
// every matched row was a fifth of a lookup's time). Only when that is certain: the
// later stages up to the first `select` are `where`, `skip`, `take` and other lookups,
// and every mention of the lookup's column names a field of it (`a.name`, never `a`
// alone). Anything else (a sort, an aggregate, no `select`, so the rows go out whole)
// keeps every field.
import type { Expr, Stage } from '../lang/ast.js'
import { fieldPaths } from './mentions-field.js'

/** The fields of the rows the lookup at `stages[at]` finds that later stages read; null: all of them. */
export function lookupFieldsRead(stages: readonly Stage[], at: number): ReadonlySet<string> | null {
  const lookup = stages[at]
  if (lookup?.kind !== 'lookup') throw new Error(`stage ${at} is not a lookup`)
  const fields = new Set<string>()
  const reads = (expr: Expr): boolean => {
    for (const path of fieldPaths(expr)) {
      if (path[0] !== lookup.name) continue
      if (path.length < 2) return false
      fields.add(path[1] as string)
    }
    return true
  }
  for (const stage of stages.slice(at + 1)) {
    switch (stage.kind) {
      case 'where': if (!reads(stage.predicate)) return null; break
      case 'skip': case 'take': break
      // A later lookup of the same name replaces the column: keep it simple, keep all.
      case 'lookup': if (stage.name === lookup.name || !reads(stage.left)) return null; break
      case 'select': return stage.items.every((item) => reads(item.expr)) ? fields : null
      default: return null
    }
  }
  return null
}
