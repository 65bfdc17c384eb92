// Order from the tree (docs/language.md "Order from the tree"): a `sort` right after
// the leading `where` stages is dropped when the access path already yields its order,
// so the rows are read in (or against) key order and a following `take` stops the
// reading. Eel's sort is stable over rows in primary-key order, so a read may stand in
// for it only when it gives exactly that order:
//
// - the primary key, ascending or descending: the rows tree itself, read forwards or
//   backwards (a scan, a primary range, or keys named by `in`); an index whose
//   entries are fetched in primary-key order (its keys gathered and sorted) reverses
//   that list;
// - an index's remaining fields after equalities on its leading ones, all ascending or
//   all descending (optionally followed by the primary key in the same direction):
//   entries with equal sort values are then equal in every index field, so they are
//   ordered by primary key. Read backwards, such ties come in descending key order and
//   are turned back (access.ts), unless the primary key closes the sort descending.
//
// An index is taken for its order only when a `take` bounds the read; reading every row
// through an index costs a point read per row, where a scan and a sort do not.
import type { SortKey, Stage } from '../../lang/ast.js'
import type { CollectionIR, IndexIR } from '../../schema/ir.js'
import type { Access, KeyRange } from './access-path.js'

/** How the access path was changed to give the sort's order; `stage` is the sort it replaces. */
export interface TreeOrder {
  stage: number
  access: Access
}

interface Bounds {
  /** Fields pinned by an equality with a constant. */
  equal: ReadonlySet<string>
}

/** The sort stage right after the leading wheres, and its index, if any. */
function leadingSort(stages: readonly Stage[]): { sort: Stage & { kind: 'sort' }; at: number } | undefined {
  let at = 0
  while (stages[at]?.kind === 'where') at += 1
  const sort = stages[at]
  return sort?.kind === 'sort' ? { sort, at } : undefined
}

function fieldOf(key: SortKey): string | undefined {
  return key.expr.kind === 'field' && key.expr.path.length === 1 ? key.expr.path[0] : undefined
}

/** Whether a take bounds the rows after the sort (through skips and selects). */
function boundedByTake(stages: readonly Stage[], from: number): boolean {
  for (const stage of stages.slice(from)) {
    if (stage.kind === 'take') return true
    if (stage.kind !== 'skip' && stage.kind !== 'select') return false
  }
  return false
}

/** The direction of a sort on the primary key alone, or undefined. */
function primaryDirection(keys: readonly SortKey[], collection: CollectionIR): boolean | undefined {
  const [only] = keys
  return keys.length === 1 && only !== undefined && fieldOf(only) === collection.primary ? only.descending : undefined
}

/**
 * How `index` gives the order of `keys` after the equalities in `bounds`: its
 * direction, and whether ties must be turned back; undefined when it cannot.
 */
function indexDirection(index: IndexIR, keys: readonly SortKey[], collection: CollectionIR, bounds: Bounds): { descending: boolean; turnTies: boolean } | undefined {
  let pinned = 0
  while (pinned < index.fields.length && bounds.equal.has(index.fields[pinned] as string)) pinned += 1
  const rest = index.fields.slice(pinned)
  if (rest.length === 0 || keys.length < rest.length || keys.length > rest.length + 1) return undefined
  const descending = keys[0]?.descending === true
  if (keys.some((k) => k.descending !== descending)) return undefined
  if (rest.some((field, i) => fieldOf(keys[i] as SortKey) !== field)) return undefined
  const tail = keys[rest.length]
  if (tail !== undefined && fieldOf(tail) !== collection.primary) return undefined
  return { descending, turnTies: descending && tail === undefined }
}

/**
 * The access giving the leading sort's order, starting from `access` (the plan the
 * wheres chose) or from an index that orders it under a take; undefined when none does.
 */
export function treeOrder(
  access: Access,
  collection: CollectionIR,
  stages: readonly Stage[],
  bounds: Bounds,
  indexAccess: (index: IndexIR) => { tree: string; range: KeyRange } | undefined,
): TreeOrder | undefined {
  const found = leadingSort(stages)
  if (found === undefined) return undefined
  const { sort, at } = found
  const primary = primaryDirection(sort.keys, collection)
  if (primary !== undefined) {
    switch (access.kind) {
      case 'points': return { stage: at, access: { ...access, keys: primary ? [...access.keys].reverse() : access.keys } }
      case 'range': return { stage: at, access: { ...access, reverse: primary } }
      case 'index': return { stage: at, access: { ...access, order: { by: 'primary', descending: primary } } }
    }
  }
  if (access.kind === 'index') {
    const direction = indexDirection(access.index, sort.keys, collection, bounds)
    if (direction !== undefined) return { stage: at, access: { ...access, order: { by: 'index', ...direction } } }
  }
  // Only a scan or a primary range gives way to an index read for its order: an index
  // the wheres chose narrows the rows more than the sort's would.
  if (access.kind !== 'range' || !boundedByTake(stages, at + 1)) return undefined
  for (const index of collection.indexes) {
    const direction = indexDirection(index, sort.keys, collection, bounds)
    const read = direction === undefined ? undefined : indexAccess(index)
    if (direction !== undefined && read !== undefined) {
      return { stage: at, access: { kind: 'index', tree: read.tree, index, range: read.range, ordered: false, order: { by: 'index', ...direction } } }
    }
  }
  return undefined
}
