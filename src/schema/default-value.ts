// Types and defaults as written in schema files, checked and turned into IR. A default
// is a literal of the field's type, a list of them, a record of them (json only), or
// `now()` (timestamp fields only); an int literal widens to float; a timestamp is an
// ISO-8601 string with a zone, stored normalised (toISOString); `= null` on an optional
// field is the same as no default; json records are stored with their keys sorted.
import type { Expr, Span, TypeExpr } from '../lang/ast.js'
import { canonicalValue } from './canonical-json.js'
import { typeText } from './field-type.js'
import type { DefaultIR, FieldType, JsonValue } from './ir.js'
import type { Reporter, SourceFile } from './report.js'
import { parseIsoTimestamp } from './timestamp.js'

export interface TypeIR {
  type: FieldType
  optional: boolean
}

export function typeIR(expr: TypeExpr, file: SourceFile, report: Reporter): TypeIR {
  if (expr.kind === 'optional') return { type: innerType(expr.inner, file, report), optional: true }
  return { type: innerType(expr, file, report), optional: false }
}

function innerType(expr: TypeExpr, file: SourceFile, report: Reporter, top = true): FieldType {
  if (expr.kind === 'list') return { kind: 'list', item: innerType(expr.item, file, report, false) }
  // A reference's type is its target's primary key, resolved once every collection is built (references.ts).
  if (expr.kind === 'ref') {
    if (!top) report.error(file, expr.span, 'a list cannot hold references; refer from the rows of another collection instead')
    return { kind: 'int' }
  }
  if (expr.kind !== 'optional') return { kind: expr.kind }
  // Only a whole value may be absent: list items and nested optionals have no IR form.
  report.error(file, expr.span, "only a whole field or parameter type can be optional ('?'), not a list item")
  return innerType(expr.inner, file, report)
}

/** What a default belongs to, for messages: "field 'age'", "parameter 'min_age'". */
export interface DefaultTarget extends TypeIR {
  what: string
  /** now() is allowed (field defaults only: a parameter default is stored as a value). */
  allowNow: boolean
}

/** The checked default, null for none (or `= null`), or undefined after reporting an error. */
export function defaultIR(expr: Expr, target: DefaultTarget, file: SourceFile, report: Reporter): DefaultIR | null | undefined {
  const folded = fold(expr)
  if (folded.kind === 'call' && folded.name === 'now') {
    if (folded.args.length > 0) return fail(report, file, folded.span, 'now() takes no arguments')
    if (target.type.kind !== 'timestamp') {
      return fail(report, file, folded.span, `${target.what} is ${typeText(target.type, target.optional)}; now() is only a default for timestamp fields`)
    }
    if (!target.allowNow) return fail(report, file, folded.span, 'now() is only allowed as the default of a field, not of a parameter')
    return { kind: 'now' }
  }
  if (folded.kind === 'literal' && folded.value === null) {
    return target.optional ? null : fail(report, file, folded.span, `${target.what} is ${typeText(target.type)}, got null`)
  }
  const value = checkValue(folded, target.type, { ...target, top: target.type }, file, report)
  return value === undefined ? undefined : { kind: 'value', value }
}

function fail(report: Reporter, file: SourceFile, span: Span, message: string): undefined {
  report.error(file, span, message)
  return undefined
}

interface Context {
  what: string
  top: FieldType
}

function checkValue(expr: Expr, type: FieldType, ctx: Context, file: SourceFile, report: Reporter): JsonValue | undefined {
  const e = fold(expr)
  const wrong = (): undefined => fail(report, file, e.span, `${ctx.what} is ${typeText(ctx.top)}, got ${describe(e)}`)
  if (e.kind !== 'literal' && e.kind !== 'list' && e.kind !== 'record') {
    return fail(report, file, e.span, 'a default must be a literal, a list or record of literals, or now()')
  }
  switch (type.kind) {
    case 'json':
      return jsonValue(e, ctx, file, report)
    case 'list': {
      if (e.kind !== 'list') return wrong()
      const items = e.items.map((item) => checkValue(item, type.item, ctx, file, report))
      return items.every((item) => item !== undefined) ? items : undefined
    }
    case 'int':
      if (e.kind !== 'literal' || typeof e.value !== 'number' || !e.integer) return wrong()
      return Number.isSafeInteger(e.value) ? e.value : fail(report, file, e.span, `${ctx.what} is int, got ${e.value}, beyond ±2^53`)
    case 'float':
      return e.kind === 'literal' && typeof e.value === 'number' && Number.isFinite(e.value) ? e.value : wrong()
    case 'string':
      return e.kind === 'literal' && typeof e.value === 'string' ? e.value : wrong()
    case 'bool':
      return e.kind === 'literal' && typeof e.value === 'boolean' ? e.value : wrong()
    case 'timestamp': {
      if (e.kind !== 'literal' || typeof e.value !== 'string') return wrong()
      const date = parseIsoTimestamp(e.value)
      if (date !== null) return date.toISOString()
      return fail(report, file, e.span, `${ctx.what} is timestamp, got string ${JSON.stringify(e.value)}, not an ISO-8601 timestamp (with a zone when it has a time)`)
    }
  }
}

function jsonValue(expr: Expr, ctx: Context, file: SourceFile, report: Reporter): JsonValue | undefined {
  const e = fold(expr)
  if (e.kind === 'literal') {
    if (typeof e.value === 'number' && !Number.isFinite(e.value)) return fail(report, file, e.span, `${ctx.what} is json, got ${e.value}`)
    return e.value
  }
  if (e.kind === 'list') {
    const items = e.items.map((item) => jsonValue(item, ctx, file, report))
    return items.every((item) => item !== undefined) ? items : undefined
  }
  if (e.kind === 'record') {
    const entries: Array<[string, JsonValue]> = []
    const seen = new Set<string>()
    let ok = true
    for (const field of e.fields) {
      if (seen.has(field.name)) {
        report.error(file, field.nameSpan, `duplicate key '${field.name}' in the default of ${ctx.what}`)
        ok = false
        continue
      }
      seen.add(field.name)
      const value = jsonValue(field.value, ctx, file, report)
      if (value === undefined) ok = false
      else entries.push([field.name, value])
    }
    if (!ok) return undefined
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return Object.fromEntries(entries)
  }
  return fail(report, file, e.span, 'a default must be a literal, a list or record of literals, or now()')
}

/** `-3` parses as negation of 3; a default wants the number. */
function fold(expr: Expr): Expr {
  if (expr.kind !== 'unary' || expr.op !== '-') return expr
  const inner = fold(expr.operand)
  if (inner.kind !== 'literal' || typeof inner.value !== 'number') return expr
  return { kind: 'literal', value: -inner.value, integer: inner.integer, span: expr.span }
}

function describe(e: Expr): string {
  if (e.kind === 'list') return 'a list'
  if (e.kind === 'record') return 'a record'
  if (e.kind !== 'literal') return 'an expression'
  if (e.value === null) return 'null'
  if (typeof e.value === 'number') return `${e.integer ? 'int' : 'float'} ${canonicalValue(e.value)}`
  if (typeof e.value === 'string') return `string ${JSON.stringify(e.value)}`
  return `bool ${e.value}`
}
