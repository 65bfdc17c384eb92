// Types Eel expressions against the shape of the rows they will see, recording
// diagnostics with positions instead of stopping at the first.
import type { Expr, Span, Value } from '../../lang/ast.js'
import { diagnostic, didYouMean, type Diagnostic, type DiagnosticCode } from '../../lang/diagnostic.js'
import type { CollectionIR, SchemaIR } from '../../schema/ir.js'
import { functions } from '../values/index.js'
import { comparable, describeValue, fromFieldType, isNumeric, t, typeName, typeOfValue, type EelType } from '../values/index.js'

/** The rows flowing between two stages: their columns and static types. */
export interface Shape {
  columns: string[]
  types: Map<string, EelType>
  /** Set while the rows are still whole rows of this collection (not projected). */
  collection: CollectionIR | null
}

export interface CheckContext {
  text: string
  params: Record<string, Value>
  integerOps: WeakSet<Expr>
  /** `* /` the checker typed as a duration: their result is rounded to whole milliseconds. */
  durationOps: WeakSet<Expr>
  diagnostics: Diagnostic[]
  /** The whole schema, for stages that name another collection (lookup). */
  schema: SchemaIR
}

export function collectionShape(collection: CollectionIR): Shape {
  return {
    columns: collection.fields.map((f) => f.name),
    types: new Map(collection.fields.map((f) => [f.name, f.optional ? widenNull(fromFieldType(f.type)) : fromFieldType(f.type)])),
    collection,
  }
}

// An optional field's type is still its type; nulls are allowed everywhere.
const widenNull = (type: EelType) => type

/** "unknown collection 'user'; did you mean 'users'?" (docs/language.md). */
export function suggest(message: string, suggestion: string | undefined): string {
  return suggestion === undefined ? message : `${message}; ${suggestion}`
}

export function report(ctx: CheckContext, span: Span, code: DiagnosticCode, message: string, extra: { hint?: string; expected?: string[] } = {}): EelType {
  ctx.diagnostics.push(diagnostic(ctx.text, span, code, message, extra))
  return t.unknown
}

export function typeExpr(expr: Expr, shape: Shape, ctx: CheckContext): EelType {
  switch (expr.kind) {
    case 'duration':
      return t.duration
    case 'literal':
      if (expr.value === null) return t.null
      if (typeof expr.value === 'number') return expr.integer ? t.int : t.float
      return typeof expr.value === 'string' ? t.string : t.bool
    case 'list': {
      const items = expr.items.map((item) => typeExpr(item, shape, ctx)).filter((item) => item.kind !== 'null')
      const first = items[0]
      return t.list(first !== undefined && items.every((item) => item.kind === first.kind) ? first : t.unknown)
    }
    case 'record':
      for (const field of expr.fields) typeExpr(field.value, shape, ctx)
      return t.record
    case 'field':
      return fieldType(expr, shape, ctx)
    case 'param': {
      if (!(expr.name in ctx.params)) {
        return report(ctx, expr.span, 'type_error', `missing parameter $${expr.name}`, { hint: 'pass it in params' })
      }
      return typeOfValue(ctx.params[expr.name] ?? null)
    }
    case 'unary': {
      const operand = typeExpr(expr.operand, shape, ctx)
      if (expr.op === 'not') {
        if (!['bool', 'unknown', 'null'].includes(operand.kind)) report(ctx, expr.operand.span, 'type_error', `not expects a bool, got ${typeName(operand)}`)
        return t.bool
      }
      if (!isNumeric(operand) && operand.kind !== 'duration') report(ctx, expr.operand.span, 'type_error', `unary minus expects a number or a duration, got ${typeName(operand)}`)
      return operand
    }
    case 'binary':
      return binaryType(expr, shape, ctx)
    case 'call': {
      const fn = functions[expr.name]
      if (fn === undefined) {
        const hint = didYouMean(expr.name, Object.keys(functions))
        return report(ctx, expr.nameSpan, 'type_error', suggest(`unknown function '${expr.name}'`, hint))
      }
      const args = expr.args.map((arg) => typeExpr(arg, shape, ctx))
      const [min, max] = fn.args
      if (args.length < min || args.length > max) {
        const count = min === max ? `${min}` : `${min} to ${max}`
        return report(ctx, expr.span, 'type_error', `${expr.name}() takes ${count} argument${max === 1 ? '' : 's'}, got ${args.length}`)
      }
      const result = fn.type(args)
      return typeof result === 'string' ? report(ctx, expr.span, 'type_error', `${expr.name}() ${result}`) : result
    }
  }
}

function fieldType(expr: Expr & { kind: 'field' }, shape: Shape, ctx: CheckContext): EelType {
  const [head, ...rest] = expr.path
  const type = head === undefined ? undefined : shape.types.get(head)
  if (type === undefined) {
    const where = shape.collection === null ? 'in these rows' : `in '${shape.collection.name}'`
    const hint = didYouMean(head ?? '', shape.columns)
    return report(ctx, expr.span, 'unknown_field', suggest(`unknown field '${head}' ${where}`, hint))
  }
  if (rest.length === 0) return type
  if (type.kind !== 'unknown' && type.kind !== 'record') {
    return report(ctx, expr.span, 'type_error', `field '${head}' is ${typeName(type)}; only json fields and looked-up rows have nested fields`)
  }
  // A looked-up row's fields are known, one level deep.
  const [next, ...deeper] = rest
  const known = type.kind === 'record' ? type.fields : undefined
  if (known === undefined || next === undefined) return t.unknown
  const inner = known.get(next)
  if (inner === undefined) {
    const hint = didYouMean(next, [...known.keys()])
    return report(ctx, expr.span, 'unknown_field', suggest(`unknown field '${next}' in '${head}'`, hint))
  }
  return deeper.length === 0 ? inner : inner.kind === 'unknown' ? t.unknown : report(ctx, expr.span, 'type_error', `field '${head}.${next}' is ${typeName(inner)}; only json fields have nested fields`)
}

function binaryType(expr: Expr & { kind: 'binary' }, shape: Shape, ctx: CheckContext): EelType {
  const left = typeExpr(expr.left, shape, ctx)
  const right = typeExpr(expr.right, shape, ctx)
  switch (expr.op) {
    case 'and': case 'or':
      for (const [side, type] of [[expr.left, left], [expr.right, right]] as const) {
        if (!['bool', 'unknown', 'null'].includes(type.kind)) report(ctx, side.span, 'type_error', `${expr.op} expects bools, got ${typeName(type)}`)
      }
      return t.bool
    case '==': case '!=': case '<': case '<=': case '>': case '>=':
      if (!comparable(left, right)) mismatch(expr.left, left, expr.right, right, ctx)
      return t.bool
    case 'in':
      if (right.kind !== 'list' && right.kind !== 'unknown') {
        report(ctx, expr.right.span, 'type_error', `in expects a list on its right, got ${typeName(right)}`)
      } else if (right.kind === 'list' && !comparable(left, right.item)) {
        mismatch(expr.left, left, expr.right, right.item, ctx)
      }
      return t.bool
    default: {
      if (expr.op === '+' && left.kind === 'string' && right.kind === 'string') return t.string
      const time = timeType(expr, left, right, ctx)
      if (time !== undefined) return time
      if (!isNumeric(left) || !isNumeric(right)) {
        const bad = isNumeric(left) ? [expr.right, right] as const : [expr.left, left] as const
        return report(ctx, bad[0].span, 'type_error', `'${expr.op}' expects numbers, got ${typeName(bad[1])}`)
      }
      if (expr.op === '/') return t.float
      if (left.kind === 'int' && right.kind === 'int') {
        ctx.integerOps.add(expr)
        return t.int
      }
      return left.kind === 'float' || right.kind === 'float' ? t.float : t.unknown
    }
  }
}

/**
 * Arithmetic with a timestamp or a duration on either side (docs/language.md "Time"),
 * or undefined when neither side is one.
 */
function timeType(expr: Expr & { kind: 'binary' }, left: EelType, right: EelType, ctx: CheckContext): EelType | undefined {
  const time = (type: EelType) => type.kind === 'timestamp' || type.kind === 'duration'
  if (!time(left) && !time(right)) return undefined
  const loose = (type: EelType) => type.kind === 'unknown' || type.kind === 'null'
  const is = (type: EelType, kind: string) => type.kind === kind || loose(type)
  const { op } = expr
  const fail = (): EelType => {
    const hint = left.kind === 'string' || right.kind === 'string' ? 'write timestamp("2024-01-01T00:00:00Z") for a timestamp' : 'durations are written 90s, 15m, 1h, 30d, 2w'
    return report(ctx, expr.span, 'type_error', `'${op}' cannot combine ${typeName(left)} and ${typeName(right)}`, { hint })
  }
  if (op === '+' || op === '-') {
    if (left.kind === 'timestamp') return is(right, 'duration') ? t.timestamp : op === '-' && right.kind === 'timestamp' ? t.duration : fail()
    if (right.kind === 'timestamp') return op === '+' && is(left, 'duration') ? t.timestamp : fail()
    if (!is(left, 'duration') || !is(right, 'duration')) return fail()
    ctx.durationOps.add(expr)
    return t.duration
  }
  if (op === '*' || op === '/') {
    const numberSide = (type: EelType) => type.kind === 'int' || type.kind === 'float' || loose(type)
    if (op === '/' && left.kind === 'duration' && right.kind === 'duration') return t.float
    const scaled = left.kind === 'duration' ? numberSide(right) : op === '*' && right.kind === 'duration' && numberSide(left)
    if (!scaled) return fail()
    ctx.durationOps.add(expr)
    return t.duration
  }
  return fail()
}

/** "field 'age' is int, got string "x"" when one side is a field and the other a known value. */
function mismatch(leftExpr: Expr, left: EelType, rightExpr: Expr, right: EelType, ctx: CheckContext): void {
  for (const [fieldSide, fieldType, otherSide] of [[leftExpr, left, rightExpr], [rightExpr, right, leftExpr]] as const) {
    if (fieldSide.kind !== 'field') continue
    const known = knownValue(otherSide, ctx)
    if (known !== undefined) {
      report(ctx, otherSide.span, 'type_error', `field '${fieldSide.path.join('.')}' is ${typeName(fieldType)}, got ${describeValue(known)}`)
      return
    }
  }
  report(ctx, rightExpr.span, 'type_error', `cannot compare ${typeName(left)} with ${typeName(right)}`)
}

function knownValue(expr: Expr, ctx: CheckContext): Value | undefined {
  if (expr.kind === 'literal') return expr.value
  if (expr.kind === 'param' && expr.name in ctx.params) return ctx.params[expr.name] ?? null
  return undefined
}

/** The collection named `name`, or a report and an empty stand-in (so later mistakes are reported too). */
export function findCollection(name: string, span: { from: number; to: number }, schema: SchemaIR, ctx: CheckContext): CollectionIR {
  const collection = schema.collections.find((c) => c.name === name)
  if (collection !== undefined) return collection
  const hint = didYouMean(name, schema.collections.map((c) => c.name))
  report(ctx, span, 'unknown_collection', suggest(`unknown collection '${name}'`, hint))
  // Carry on with an empty collection so later mistakes are reported too.
  return { name, primary: 'id', primary_auto: true, fields: [], indexes: [], was: null, dropped: [] }
}
