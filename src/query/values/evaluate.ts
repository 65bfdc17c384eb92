// Evaluates Eel expressions over a row. Semantics (docs/language.md):
// - `==` and `!=` are total: null == null is true; int 3 == float 3.0.
// - `<` `<=` `>` `>=` with a null side are false.
// - `and`, `or`, `not` are two-valued: anything but true counts as false.
// - `x in [..]` is false when x is null.
// - Arithmetic with a null operand is null; `/` always gives a float; an integer
//   result beyond ±2^53, a float result beyond ±1.7976931348623157e308 (IEEE
//   infinity, which JSON cannot carry) and a division or remainder by zero are
//   errors. So every value an expression gives is finite, as every stored one is.
import type { Expr, Value } from '../../lang/ast.js'
import { compareValues } from '../../codec/index.js'
import { QueryError } from '../errors.js'
import { functions } from './functions.js'
import { InListMembers, in_comparisons, in_list_walk_max } from './in-list.js'
import { mentionsField } from './mentions-field.js'
import { timeArithmetic, wholeMs } from './time.js'
import { parseTimestamp } from './timestamp-text.js'

export { parseTimestamp }

export type Row = Record<string, Value>

export interface EvalContext {
  params: Record<string, Value>
  now: Date
  /** Arithmetic the checker typed as int (JS has one number type): only these overflow. */
  integerOps: WeakSet<Expr>
  /** `* /` the checker typed as a duration: rounded to whole milliseconds (time.ts). */
  durationOps?: WeakSet<Expr>
  /** The members of the statement's constant `in` lists, made on first use (in-list.ts). */
  inLists?: Map<Expr, { list: Value[]; members: InListMembers }>
}

export function evaluate(expr: Expr, row: Row, ctx: EvalContext): Value {
  switch (expr.kind) {
    case 'literal':
      return expr.value
    case 'duration':
      return expr.ms
    case 'list':
      return expr.items.map((item) => evaluate(item, row, ctx))
    case 'record':
      return Object.fromEntries(expr.fields.map((f) => [f.name, evaluate(f.value, row, ctx)]))
    case 'field': {
      // A row is a record: a one-name path needs none of readPath's checks, a two-name
      // path (a lookup's column and its field) only the inner one's.
      const { path } = expr
      if (path.length === 1) return row[path[0] as string] ?? null
      if (path.length === 2) {
        const inner = row[path[0] as string]
        if (inner === null || inner === undefined || typeof inner !== 'object' || Array.isArray(inner) || inner instanceof Date) return null
        return (inner as Row)[path[1] as string] ?? null
      }
      return readPath(row, path)
    }
    case 'param':
      return ctx.params[expr.name] ?? null
    case 'unary': {
      const value = evaluate(expr.operand, row, ctx)
      if (expr.op === 'not') return value !== true
      // Negation keeps a finite number finite and a safe integer safe: it cannot overflow.
      return typeof value === 'number' ? -value : null
    }
    case 'binary':
      return binary(expr, row, ctx)
    case 'call': {
      // `if` evaluates only the branch it takes, so if(n != 0, x / n, null) cannot fail.
      if (expr.name === 'if') return evaluate(expr.args[evaluate(expr.args[0] as Expr, row, ctx) === true ? 1 : 2] as Expr, row, ctx)
      const fn = functions[expr.name]
      if (fn === undefined) throw new QueryError('type_error', `unknown function '${expr.name}'`)
      return fn.call(expr.args.map((arg) => evaluate(arg, row, ctx)), ctx.now)
    }
  }
}

export function readPath(row: Row, path: string[]): Value {
  let value: Value = row
  for (const name of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return null
    value = (value as Record<string, Value>)[name] ?? null
  }
  return value
}

/** A timestamp compares with an ISO-8601 string (how JSON carries timestamps). */
function aligned(a: Value, b: Value): [Value, Value] {
  if (a instanceof Date && typeof b === 'string') return [a, parseTimestamp(b) ?? b]
  if (typeof a === 'string' && b instanceof Date) return [parseTimestamp(a) ?? a, b]
  return [a, b]
}


function binary(expr: Expr & { kind: 'binary' }, row: Row, ctx: EvalContext): Value {
  const { op } = expr
  if (op === 'and') return evaluate(expr.left, row, ctx) === true && evaluate(expr.right, row, ctx) === true
  if (op === 'or') return evaluate(expr.left, row, ctx) === true || evaluate(expr.right, row, ctx) === true
  if (op === 'in') return inList(expr, row, ctx)
  const left = evaluate(expr.left, row, ctx)
  const right = evaluate(expr.right, row, ctx)
  switch (op) {
    case '==': case '!=': {
      const [a, b] = aligned(left, right)
      return (compareValues(a, b) === 0) === (op === '==')
    }
    case '<': case '<=': case '>': case '>=': {
      if (left === null || right === null) return false
      const [a, b] = aligned(left, right)
      const order = compareValues(a, b)
      return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0
    }
    default: {
      if (left === null || right === null) return null
      const time = timeArithmetic(op, left, right)
      if (time !== undefined) return time
      const result = arithmetic(op, left, right, expr, ctx.integerOps.has(expr))
      return ctx.durationOps?.has(expr) === true ? wholeMs(result as number, `${left} ${op} ${right}`) : result
    }
  }
}

/** Whether each list literal reads the row: worked out once per node (the AST is not changed after parsing). */
const rowFree = new WeakMap<Expr, boolean>()

/**
 * `x in list`: a list that does not read the row (literals, a parameter) and is longer
 * than in_list_walk_max is evaluated once per statement and its members hashed
 * (in-list.ts); any other is walked.
 */
function inList(expr: Expr & { kind: 'binary' }, row: Row, ctx: EvalContext): boolean {
  const left = evaluate(expr.left, row, ctx)
  const source = expr.right
  let constant = source.kind === 'param'
  if (source.kind === 'list' && source.items.length > in_list_walk_max) {
    let free = rowFree.get(source)
    if (free === undefined) rowFree.set(source, (free = !mentionsField(source)))
    constant = free
  }
  const known = constant ? ctx.inLists?.get(source) : undefined
  const right = known === undefined ? evaluate(source, row, ctx) : known.list
  if (!Array.isArray(right)) return false
  if (constant && right.length > in_list_walk_max) {
    let members = known?.list === right ? known.members : undefined
    if (members === undefined) {
      members = new InListMembers(right)
      ;(ctx.inLists ??= new Map()).set(source, { list: right, members })
    }
    return left !== null && members.has(left)
  }
  if (left === null) return false
  return right.some((item) => {
    in_comparisons.count += 1
    const [a, b] = aligned(left, item)
    return compareValues(a, b) === 0
  })
}

function arithmetic(op: '+' | '-' | '*' | '/' | '%', left: Value, right: Value, expr: Expr, integer: boolean): Value {
  if (left === null || right === null) return null
  if (op === '+' && typeof left === 'string' && typeof right === 'string') return left + right
  if (typeof left !== 'number' || typeof right !== 'number') {
    throw new QueryError('type_error', `cannot apply '${op}' to ${typeof left} and ${typeof right} at offset ${expr.span.from}`)
  }
  if ((op === '/' || op === '%') && right === 0) {
    throw new QueryError('type_error', op === '/' ? 'division by zero' : 'remainder by zero')
  }
  const result = op === '+' ? left + right : op === '-' ? left - right : op === '*' ? left * right : op === '/' ? left / right : left % right
  if (integer && !Number.isSafeInteger(result)) {
    throw new QueryError('type_error', `integer overflow: ${left} ${op} ${right} is beyond ±2^53`)
  }
  if (!Number.isFinite(result)) throw floatOverflow(`${left} ${op} ${right}`)
  return result
}

/** A float result beyond the largest finite double, which would read back as null in JSON. */
export function floatOverflow(what: string): QueryError {
  return new QueryError('type_error', `float overflow: ${what} is beyond ±${Number.MAX_VALUE}`)
}
