// Chooses how a pipeline reads its collection: a primary-key get or range, a
// secondary-index equality or range, or a scan. Only `where` stages at the head of
// the pipeline (and a leading `get`) drive the choice; every `where` is still
// evaluated on the rows read, so the access path only narrows, never decides, except
// the conjuncts a primary-key range answers exactly (`answered`, answered.ts).
import type { Expr, Stage, Value } from '../../lang/ast.js'
import type { CollectionIR, IndexIR } from '../../schema/ir.js'
import { compareValues, componentRange, encodeKey, type Bound as CodecBound } from '../../codec/index.js'
import { evaluate, parseTimestamp, type EvalContext } from '../values/index.js'
import { indexTree, rowsTree } from '../../txn/index.js'
import { conjuncts } from './answered.js'
import { mentionsField } from '../values/index.js'
import { treeOrder } from './tree-order.js'
import type { Access, KeyRange } from './access-path.js'

/** How one lookup reads its collection (part of the plan hint, docs/api.md; lookup.ts). */
export interface LookupHint {
  collection: string
  access: 'primary' | 'index' | 'hash'
  index?: string
}

/** The plan hint of every response (docs/api.md). */
export interface PlanHint {
  collection: string
  access: 'primary' | 'index' | 'scan'
  index?: string
  /** One per lookup stage, in order: how it reads its collection (lookup.ts). */
  lookups?: LookupHint[]
}

export type { Access, IndexOrder, KeyRange } from './access-path.js'

export interface Plan {
  hint: PlanHint
  access: Access
  /** The sort stage the access path's order stands in for (tree-order.ts): it is not run. */
  sorted?: number
  /** Conjuncts of the leading `where` stages every row the access reads satisfies (a primary-key range): not evaluated again (answered.ts). */
  answered?: Expr[]
}

type Op = '==' | '<' | '<=' | '>' | '>='

interface Bound {
  field: string
  op: Op
  value: Value
  /** The conjunct it came from. */
  expr: Expr
}

interface Points {
  field: string
  values: Value[]
}

const flipped: Record<Op, Op> = { '==': '==', '<': '>', '<=': '>=', '>': '<', '>=': '<=' }

export function plan(tenant: string, collection: CollectionIR, stages: Stage[], ctx: EvalContext): Plan {
  const { chosen, bounds } = planAccess(tenant, collection, stages, ctx)
  // Only a sort can be replaced by the tree's order: a point read skips the rest.
  if (!stages.some((stage) => stage.kind === 'sort')) return chosen
  const equal = new Set(bounds.filter((b) => b.op === '==').map((b) => b.field))
  const ordered = treeOrder(chosen.access, collection, stages, { equal }, (index) => {
    // The whole index when nothing narrows it: the take bounds the read.
    const choice = indexChoice(index, bounds, true)
    return choice === undefined ? undefined : { tree: indexTree(tenant, collection.name, index.name), range: choice.range }
  })
  if (ordered === undefined) return chosen
  const hint: PlanHint = ordered.access.kind === 'index'
    ? { collection: collection.name, access: 'index', index: ordered.access.index.name }
    : chosen.hint
  return { hint, access: ordered.access, sorted: ordered.stage }
}

/** How many plan templates this process made: the way a test sees that a statement was planned once (test/query-prepared.test.ts). */
export const plan_templates_made = { count: 0 }

/**
 * A statement's plan as a function of its parameters' values, made once per checked
 * statement (a prepared statement checks once per shape of its parameters: docs/api.md,
 * "Prepared statements"). A `get`, and a pipeline that neither starts with `where` nor
 * sorts, are decided here once, and only a `get`'s key is computed per call. A pipeline
 * led by `where` chooses its access path on each call: which bound is the tightest, and
 * whether a bound is null or fails to evaluate, depends on the values themselves.
 */
export function planTemplate(tenant: string, collection: CollectionIR, stages: Stage[]): (ctx: EvalContext) => Plan {
  plan_templates_made.count += 1
  const first = stages[0]
  if (stages.some((stage) => stage.kind === 'sort')) return (ctx) => plan(tenant, collection, stages, ctx)
  if (first?.kind === 'get') {
    const rows = rowsTree(tenant, collection.name)
    return (ctx) => {
      const key = constant(first.key, ctx, collection, collection.primary)
      return { hint: { collection: collection.name, access: 'primary' }, access: { kind: 'points', tree: rows, keys: key === undefined ? [] : [encodeKey([key])] } }
    }
  }
  if (first?.kind !== 'where') {
    const fixed = plan(tenant, collection, stages, { params: {}, now: new Date(0), integerOps: new WeakSet() })
    return () => ({ hint: { ...fixed.hint }, access: fixed.access })
  }
  return (ctx) => plan(tenant, collection, stages, ctx)
}

function planAccess(tenant: string, collection: CollectionIR, stages: Stage[], ctx: EvalContext): { chosen: Plan; bounds: Bound[] } {
  const rows = rowsTree(tenant, collection.name)
  const first = stages[0]
  if (first?.kind === 'get') {
    const key = constant(first.key, ctx, collection, collection.primary)
    return { chosen: { hint: { collection: collection.name, access: 'primary' }, access: { kind: 'points', tree: rows, keys: key === undefined ? [] : [encodeKey([key])] } }, bounds: [] }
  }
  const leading: Expr[] = []
  for (const stage of stages) {
    if (stage.kind !== 'where') break
    conjuncts(stage.predicate, leading)
  }
  const bounds: Bound[] = []
  const points: Points[] = []
  for (const c of leading) {
    const bound = sargable(c, ctx, collection)
    if (bound !== undefined) bounds.push(bound)
    const list = inList(c, ctx, collection)
    if (list !== undefined) points.push(list)
  }
  const scan: Plan = { hint: { collection: collection.name, access: 'scan' }, access: { kind: 'range', tree: rows, range: {} } }
  const primary = collection.primary
  const primaryEq = bounds.find((b) => b.field === primary && b.op === '==')
  if (primaryEq !== undefined) {
    return { chosen: { hint: { collection: collection.name, access: 'primary' }, access: { kind: 'points', tree: rows, keys: [encodeKey([primaryEq.value])] } }, bounds }
  }
  const primaryIn = points.find((p) => p.field === primary)
  if (primaryIn !== undefined) {
    return { chosen: { hint: { collection: collection.name, access: 'primary' }, access: { kind: 'points', tree: rows, keys: distinctKeys(primaryIn.values) } }, bounds }
  }
  const best = bestIndex(collection, bounds)
  if (best !== undefined && best.equalities > 0) return { chosen: indexPlan(tenant, collection, best), bounds }
  const onPrimary = bounds.filter((b) => b.field === primary)
  const primaryRange = rangeFor([], onPrimary)
  if (primaryRange !== undefined) {
    const answered = onPrimary.map((b) => b.expr)
    return { chosen: { hint: { collection: collection.name, access: 'primary' }, access: { kind: 'range', tree: rows, range: primaryRange }, answered }, bounds }
  }
  if (best !== undefined) return { chosen: indexPlan(tenant, collection, best), bounds }
  return { chosen: scan, bounds }
}

/** The encoded keys of `values`, each once, in key order: each encoded once, equal ones next to each other once sorted. */
function distinctKeys(values: readonly Value[]): Buffer[] {
  const sorted = values.map((v) => encodeKey([v])).sort(Buffer.compare)
  return sorted.filter((key, i) => i === 0 || !key.equals(sorted[i - 1] as Buffer))
}

interface IndexChoice {
  index: IndexIR
  equalities: number
  /** A range on the field after the equalities narrows it further. */
  ranged: boolean
  range: KeyRange
}

/** More leading equalities first, then a range on the next field, then a unique match. */
function score(choice: IndexChoice): number {
  const uniqueMatch = choice.index.unique && choice.equalities === choice.index.fields.length
  return choice.equalities * 4 + (choice.ranged ? 2 : 0) + (uniqueMatch ? 1 : 0)
}

function bestIndex(collection: CollectionIR, bounds: Bound[]): IndexChoice | undefined {
  let best: IndexChoice | undefined
  for (const index of collection.indexes) {
    const choice = indexChoice(index, bounds)
    if (choice === undefined) continue
    if (best === undefined || score(choice) > score(best)) best = choice
  }
  return best
}

/** Equalities on the index's leading fields and a range on the next one; undefined when nothing narrows it. */
function indexChoice(index: IndexIR, bounds: Bound[], whole = false): IndexChoice | undefined {
  const prefix: Value[] = []
  for (const field of index.fields) {
    const eq = bounds.find((b) => b.field === field && b.op === '==')
    if (eq === undefined) break
    prefix.push(eq.value)
  }
  const next = index.fields[prefix.length]
  const rangeBounds = next === undefined ? [] : bounds.filter((b) => b.field === next && b.op !== '==')
  const range = rangeFor(prefix, rangeBounds) ?? (whole ? {} : undefined)
  if (range === undefined) return undefined
  return { index, equalities: prefix.length, ranged: rangeBounds.length > 0, range }
}

function indexPlan(tenant: string, collection: CollectionIR, choice: IndexChoice): Plan {
  return {
    hint: { collection: collection.name, access: 'index', index: choice.index.name },
    access: {
      kind: 'index',
      tree: indexTree(tenant, collection.name, choice.index.name),
      index: choice.index,
      range: choice.range,
      ordered: choice.equalities === choice.index.fields.length,
    },
  }
}

/**
 * The key range for `prefix` equalities followed by bounds on the next component,
 * or undefined when nothing narrows it. The tightest lower and upper bound win; the
 * codec's componentRange keeps a one-sided range within the bound's kind, so
 * `age < 30` does not read the rows whose age is null.
 */
function rangeFor(prefix: Value[], bounds: Bound[]): KeyRange | undefined {
  if (prefix.length === 0 && bounds.length === 0) return undefined
  let lower: CodecBound | null = null
  let upper: CodecBound | null = null
  for (const bound of bounds) {
    if (bound.op === '>' || bound.op === '>=') {
      const order = lower === null ? 1 : compareValues(bound.value, lower.value)
      if (order > 0 || (order === 0 && bound.op === '>')) lower = { value: bound.value, inclusive: bound.op === '>=' }
    } else {
      const order = upper === null ? -1 : compareValues(bound.value, upper.value)
      if (order < 0 || (order === 0 && bound.op === '<')) upper = { value: bound.value, inclusive: bound.op === '<=' }
    }
  }
  const { start, end } = componentRange(prefix, lower, upper)
  return { lower: start, lowerInclusive: true, ...(end === null ? {} : { upper: end, upperInclusive: false }) }
}

/** `field op constant` (either way round) on a top-level field, with a non-null constant. */
function sargable(expr: Expr, ctx: EvalContext, collection: CollectionIR): Bound | undefined {
  if (expr.kind !== 'binary' || !(expr.op in flipped)) return undefined
  const op = expr.op as Op
  const [field, other, direction] =
    expr.left.kind === 'field' ? [expr.left, expr.right, op] : expr.right.kind === 'field' ? [expr.right, expr.left, flipped[op]] : []
  if (field === undefined || other === undefined || direction === undefined || field.path.length !== 1) return undefined
  const name = field.path[0] as string
  const value = constant(other, ctx, collection, name)
  // Ordering comparisons with null are false; the filter handles them (no range).
  if (value === undefined || (value === null && direction !== '==')) return undefined
  return { field: name, op: direction, value, expr }
}

function inList(expr: Expr, ctx: EvalContext, collection: CollectionIR): Points | undefined {
  if (expr.kind !== 'binary' || expr.op !== 'in' || expr.left.kind !== 'field' || expr.left.path.length !== 1) return undefined
  const name = expr.left.path[0] as string
  const list = constantValue(expr.right, ctx)
  if (!Array.isArray(list)) return undefined
  const values = list.map((v) => coerce(v, collection, name)).filter((v) => v !== null)
  return { field: name, values }
}

/** A constant as the field stores it (an ISO string compared with a timestamp is a Date). */
function constant(expr: Expr, ctx: EvalContext, collection: CollectionIR, field: string): Value | undefined {
  const value = constantValue(expr, ctx)
  return value === undefined ? undefined : coerce(value, collection, field)
}

function coerce(value: Value, collection: CollectionIR, field: string): Value {
  const type = collection.fields.find((f) => f.name === field)?.type
  if (type?.kind === 'timestamp' && typeof value === 'string') return parseTimestamp(value) ?? value
  return value
}

function constantValue(expr: Expr, ctx: EvalContext): Value | undefined {
  if (mentionsField(expr)) return undefined
  try {
    return evaluate(expr, {}, ctx)
  } catch {
    return undefined // an error in a constant surfaces when the filter evaluates it
  }
}
