// Which fields of a lookup's rows the rest of the pipeline reads, so the lookup decodes
// only those from each row it finds (docs/performance.md, P15: decoding every field of
// every matched row was a fifth of a lookup's time). Only when that is certain: the
// later stages up to the first `select` are `where`, `skip`, `take` and other lookups,
// and every mention of the lookup's column names a field of it (`a.name`, never `a`
// alone). Anything else (a sort, an aggregate, no `select`, so the rows go out whole)
// keeps every field. rowFieldsRead answers the same for the rows of the scan itself.
import type { Expr, Stage } from '../../lang/ast.js'
import { fieldPaths } from '../values/index.js'

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

/**
 * The fields of the rows a range read brings that its stages read, so each row is
 * decoded no further (docs/performance.md, P15); null (all of them) unless that is
 * certain, as for lookupFieldsRead: up to the first `select` the stages are `where`,
 * `skip`, `take` and lookups, and the select decides what goes out. A lookup's column
 * is not a field of the rows from the lookup on. `nativeFirst`: the first stage is a
 * lookup the storage core runs with the read, so its left field is not read here.
 */
export function rowFieldsRead(stages: readonly Stage[], nativeFirst: boolean): ReadonlySet<string> | null {
  const fields = new Set<string>()
  const columns = new Set<string>()
  const reads = (expr: Expr): void => {
    for (const path of fieldPaths(expr)) if (!columns.has(path[0] as string)) fields.add(path[0] as string)
  }
  for (const [i, stage] of stages.entries()) {
    switch (stage.kind) {
      case 'where': reads(stage.predicate); break
      case 'skip': case 'take': break
      case 'lookup':
        if (!(nativeFirst && i === 0)) reads(stage.left)
        columns.add(stage.name)
        break
      case 'select':
        for (const item of stage.items) reads(item.expr)
        return fields
      default: return null
    }
  }
  return null
}
