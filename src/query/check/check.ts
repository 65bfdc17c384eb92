// Checks a parsed statement against the schema IR and the request's parameters:
// names, types, parameter types and the stage-ordering rules of docs/language.md.
// Throws an EelError carrying every diagnostic found.
import type { AggregateItem, Expr, Stage, Statement, Value } from '../../lang/ast.js'
import type { SelectItem } from '../../lang/ast.js'
import { EelError, didYouMean, type Diagnostic } from '../../lang/diagnostic.js'
import { parse } from '../../lang/parse.js'
import type { CollectionIR, SchemaIR } from '../../schema/ir.js'
import { collectionShape, findCollection, report, suggest, typeExpr, type CheckContext, type Shape } from './check-expr.js'
import { evaluate } from '../values/index.js'
import { convertValue } from '../values/index.js'
import { fromFieldType, t, typeName, type EelType } from '../values/index.js'
import { mentionsField } from '../values/index.js'
import { checkReturning } from './check-returning.js'
import { checkLookup } from './check-lookup.js'

export type CheckedStatement =
  | { kind: 'pipeline'; collection: CollectionIR; stages: Stage[]; output: Shape }
  | { kind: 'insert' | 'upsert'; collection: CollectionIR; rows: Expr; returning: SelectItem[] | null; output: Shape }
  | { kind: 'explain'; statement: CheckedStatement }
  | { kind: 'atomic'; statements: CheckedStatement[] }

export interface Checked {
  statement: CheckedStatement
  /** The request's parameters plus those bound by named-query calls. */
  params: Record<string, Value>
  integerOps: WeakSet<Expr>
  durationOps: WeakSet<Expr>
}

const before_writes = new Set(['where', 'get', 'sort', 'skip', 'take'])

export function check(statement: Statement, schema: SchemaIR, text: string, params: Record<string, Value>): Checked {
  const ctx: CheckContext = { text, params: { ...params }, integerOps: new WeakSet(), durationOps: new WeakSet(), diagnostics: [], schema }
  const checked = checkStatement(statement, schema, ctx, true)
  if (ctx.diagnostics.length > 0) throw new EelError(ctx.diagnostics)
  return { statement: checked, params: ctx.params, integerOps: ctx.integerOps, durationOps: ctx.durationOps }
}

function checkStatement(statement: Statement, schema: SchemaIR, ctx: CheckContext, top: boolean): CheckedStatement {
  switch (statement.kind) {
    case 'pipeline':
      return checkPipeline(statement, schema, ctx)
    case 'insert': case 'upsert': {
      const collection = findCollection(statement.collection, statement.collectionSpan, schema, ctx)
      checkRows(statement.rows, collection, ctx)
      const returning = checkReturning(statement.returning, collection, ctx)
      return { kind: statement.kind, collection, rows: statement.rows, returning: returning?.items ?? null, output: returning?.shape ?? affectedShape }
    }
    case 'explain':
      if (statement.statement.kind === 'explain' || statement.statement.kind === 'atomic') {
        report(ctx, statement.span, 'syntax_error', `explain takes a pipeline or a write, not ${statement.statement.kind}`)
      }
      return { kind: 'explain', statement: checkStatement(statement.statement, schema, ctx, false) }
    case 'atomic':
      if (!top) report(ctx, statement.span, 'syntax_error', 'atomic blocks cannot be nested')
      return {
        kind: 'atomic',
        statements: statement.statements.map((inner) => {
          if (inner.kind === 'atomic' || inner.kind === 'explain') {
            report(ctx, inner.span, 'syntax_error', `an atomic block holds pipelines and writes, not ${inner.kind}`)
          }
          return checkStatement(inner, schema, ctx, false)
        }),
      }
    default: {
      const what = statement.kind === 'tenant_op' ? 'tenant operations' : 'schema declarations'
      const hint = statement.kind === 'tenant_op' ? 'use POST /ops' : 'declare them in a schema file loaded at start'
      report(ctx, statement.span, 'not_allowed_here', `${what} are not allowed here`, { hint })
      return { kind: 'atomic', statements: [] }
    }
  }
}


function checkPipeline(statement: Statement & { kind: 'pipeline' }, schema: SchemaIR, ctx: CheckContext): CheckedStatement {
  let collection: CollectionIR
  let stages: Stage[]
  if (statement.source.kind === 'collection') {
    collection = findCollection(statement.source.name, statement.source.span, schema, ctx)
    stages = statement.stages
  } else {
    const body = expandCall(statement.source, schema, ctx)
    if (body === null) return { kind: 'atomic', statements: [] }
    collection = body.collection
    stages = [...body.stages, ...statement.stages]
  }
  let shape = collectionShape(collection)
  stages.forEach((stage, i) => {
    shape = checkStage(stage, i, stages, shape, ctx)
  })
  return { kind: 'pipeline', collection, stages, output: shape }
}

function checkStage(stage: Stage, index: number, stages: Stage[], shape: Shape, ctx: CheckContext): Shape {
  switch (stage.kind) {
    case 'where':
      expectType(stage.predicate, shape, ctx, ['bool'], 'where expects a condition')
      return shape
    case 'lookup':
      return checkLookup(stage, shape, ctx)
    case 'get': {
      if (index !== 0) report(ctx, stage.span, 'syntax_error', "'get' must be the first stage")
      const collection = shape.collection
      if (collection !== null) {
        const primary = collection.fields.find((f) => f.name === collection.primary)
        const type = typeExpr(stage.key, shape, ctx)
        if (primary !== undefined && !['unknown', 'null'].includes(type.kind) && !compatible(fromFieldType(primary.type), type)) {
          report(ctx, stage.key.span, 'type_error', `the primary key '${primary.name}' is ${typeName(fromFieldType(primary.type))}, got ${typeName(type)}`)
        }
      }
      return shape
    }
    case 'sort':
      for (const key of stage.keys) typeExpr(key.expr, shape, ctx)
      return shape
    case 'skip': case 'take':
      expectConstantInt(stage.count, shape, ctx, stage.kind)
      return shape
    case 'count':
      return { columns: ['count'], types: new Map([['count', t.int]]), collection: null }
    case 'select': {
      const types = new Map<string, EelType>()
      for (const item of stage.items) {
        if (item.name === '') report(ctx, item.span, 'syntax_error', 'this column needs a name', { hint: 'write name: expression' })
        if (types.has(item.name)) report(ctx, item.span, 'syntax_error', `column '${item.name}' is selected twice`)
        types.set(item.name, typeExpr(item.expr, shape, ctx))
      }
      return { columns: [...types.keys()], types, collection: null }
    }
    case 'aggregate': {
      const types = new Map<string, EelType>()
      for (const by of stage.by) {
        if (by.kind !== 'field') report(ctx, by.span, 'syntax_error', 'aggregate … by takes field names')
        else types.set(by.path.at(-1) ?? '', typeExpr(by, shape, ctx))
      }
      for (const item of stage.items) {
        if (types.has(item.name)) report(ctx, item.span, 'syntax_error', `column '${item.name}' appears twice`)
        types.set(item.name, aggregateType(item, shape, ctx))
      }
      return { columns: [...types.keys()], types, collection: null }
    }
    case 'distinct': {
      const types = new Map<string, EelType>()
      for (const field of stage.fields) {
        if (field.kind !== 'field') report(ctx, field.span, 'syntax_error', 'distinct takes field names')
        else types.set(field.path.at(-1) ?? '', typeExpr(field, shape, ctx))
      }
      return { columns: [...types.keys()], types, collection: null }
    }
    case 'update': case 'delete': {
      if (index !== stages.length - 1) report(ctx, stage.span, 'syntax_error', `'${stage.kind}' must be the last stage`)
      const bad = stages.slice(0, index).find((s) => !before_writes.has(s.kind))
      if (bad !== undefined) {
        report(ctx, bad.span, 'syntax_error', `only where, get, sort, skip and take may come before ${stage.kind}`)
      }
      const collection = shape.collection
      if (stage.kind === 'update' && collection !== null) {
        for (const set of stage.set) {
          const field = collection.fields.find((f) => f.name === set.name)
          if (field === undefined) {
            const hint = didYouMean(set.name, collection.fields.map((f) => f.name))
            report(ctx, set.nameSpan, 'unknown_field', suggest(`unknown field '${set.name}' in '${collection.name}'`, hint))
          } else if (field.name === collection.primary) {
            report(ctx, set.nameSpan, 'type_error', `the primary key '${field.name}' cannot be updated`, { hint: 'delete the row and insert it again' })
          } else {
            checkAssignable(set.value, field.name, fromFieldType(field.type), shape, ctx)
          }
        }
      }
      if (collection === null) return affectedShape
      return checkReturning(stage.returning, collection, ctx)?.shape ?? affectedShape
    }
  }
}

const affectedShape: Shape = { columns: ['affected'], types: new Map([['affected', t.int]]), collection: null }

function aggregateType(item: AggregateItem, shape: Shape, ctx: CheckContext): EelType {
  const { fn, arg } = item
  const type = arg === null ? null : typeExpr(arg, shape, ctx)
  if (fn === 'count') return t.int
  if (type === null || arg === null) return report(ctx, item.span, 'type_error', `${fn}() needs an argument`)
  if (fn === 'count_distinct') return t.int
  // A sum of durations is a duration; an average of them would not be whole milliseconds.
  const summable = fn === 'sum' ? ['int', 'float', 'duration', 'unknown', 'null'] : ['int', 'float', 'unknown', 'null']
  if ((fn === 'sum' || fn === 'avg') && !summable.includes(type.kind)) {
    const hint = type.kind === 'duration' ? { hint: `write ${fn}(d / 1s) for seconds` } : {}
    report(ctx, arg.span, 'type_error', `${fn}() expects numbers, got ${typeName(type)}`, hint)
  }
  // A sum of ints is an int: like any integer arithmetic, beyond ±2^53 it is an error.
  if (fn === 'sum' && type.kind === 'int') ctx.integerOps.add(arg)
  return fn === 'avg' ? t.float : type
}

function expectType(expr: Expr, shape: Shape, ctx: CheckContext, kinds: string[], message: string): void {
  const type = typeExpr(expr, shape, ctx)
  if (!kinds.includes(type.kind) && type.kind !== 'unknown' && type.kind !== 'null') {
    report(ctx, expr.span, 'type_error', `${message}, got ${typeName(type)}`)
  }
}

function expectConstantInt(expr: Expr, shape: Shape, ctx: CheckContext, stage: string): void {
  if (mentionsField(expr)) {
    report(ctx, expr.span, 'type_error', `${stage} takes a number, not a field`)
    return
  }
  expectType(expr, shape, ctx, ['int'], `${stage} expects an int`)
  if (!ctx.diagnostics.length) {
    const value = evaluate(expr, {}, { params: ctx.params, now: new Date(), integerOps: ctx.integerOps, durationOps: ctx.durationOps })
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      report(ctx, expr.span, 'type_error', `${stage} expects a whole number of 0 or more, got ${JSON.stringify(value)}`)
    }
  }
}

function compatible(field: EelType, value: EelType): boolean {
  if (field.kind === 'unknown' || value.kind === 'unknown' || value.kind === 'null') return true
  if (field.kind === 'float' && value.kind === 'int') return true
  if (field.kind === 'timestamp' && value.kind === 'string') return true
  if (field.kind === 'list' && value.kind === 'list') return compatible(field.item, value.item)
  return field.kind === value.kind
}

function checkAssignable(expr: Expr, name: string, fieldType: EelType, shape: Shape, ctx: CheckContext): void {
  const type = typeExpr(expr, shape, ctx)
  if (type.kind === 'duration') {
    report(ctx, expr.span, 'type_error', `field '${name}' is ${typeName(fieldType)}, got duration; durations are not stored`, { hint: 'store a number: d / 1s in seconds, d / 1ms in milliseconds' })
    return
  }
  if (compatible(fieldType, type)) return
  const known = expr.kind === 'literal' ? expr.value : expr.kind === 'param' ? ctx.params[expr.name] : undefined
  const got = known === undefined ? typeName(type) : `${typeName(type)} ${JSON.stringify(known)}`
  report(ctx, expr.span, 'type_error', `field '${name}' is ${typeName(fieldType)}, got ${got}`)
}

/** Literal rows are checked now; rows passed as parameters when written. */
function checkRows(rows: Expr, collection: CollectionIR, ctx: CheckContext): void {
  const records = rows.kind === 'record' ? [rows] : rows.kind === 'list' ? rows.items : []
  if (rows.kind === 'param') {
    typeExpr(rows, collectionShape(collection), ctx)
    return
  }
  if (rows.kind !== 'record' && rows.kind !== 'list') {
    report(ctx, rows.span, 'type_error', 'insert expects a record, a list of records or a parameter')
    return
  }
  const shape: Shape = { columns: [], types: new Map(), collection: null }
  for (const record of records) {
    if (record.kind !== 'record') {
      report(ctx, record.span, 'type_error', `a row of '${collection.name}' must be a record`)
      continue
    }
    for (const field of record.fields) {
      const declared = collection.fields.find((f) => f.name === field.name)
      if (declared === undefined) {
        const hint = didYouMean(field.name, collection.fields.map((f) => f.name))
        report(ctx, field.nameSpan, 'unknown_field', suggest(`unknown field '${field.name}' in '${collection.name}'`, hint))
        continue
      }
      if (mentionsField(field.value)) {
        report(ctx, field.value.span, 'type_error', 'inserted values cannot refer to fields')
        continue
      }
      checkAssignable(field.value, field.name, fromFieldType(declared.type), shape, ctx)
    }
  }
}

/** A named query's body with its parameters bound from the call's arguments. */
function expandCall(
  source: { name: string; nameSpan: { from: number; to: number }; args: Array<{ name: string; nameSpan: { from: number; to: number }; value: Expr }>; span: { from: number; to: number } },
  schema: SchemaIR,
  ctx: CheckContext,
): { collection: CollectionIR; stages: Stage[] } | null {
  const query = schema.queries.find((q) => q.name === source.name)
  if (query === undefined) {
    const hint = didYouMean(source.name, schema.queries.map((q) => q.name))
    report(ctx, source.nameSpan, 'unknown_collection', suggest(`unknown query '${source.name}'`, hint))
    return null
  }
  const bound: Record<string, Value> = {}
  for (const arg of source.args) {
    const param = query.params.find((p) => p.name === arg.name)
    if (param === undefined) {
      report(ctx, arg.nameSpan, 'type_error', `query '${query.name}' has no parameter '${arg.name}'`)
      continue
    }
    if (mentionsField(arg.value)) {
      report(ctx, arg.value.span, 'type_error', 'arguments of call cannot refer to fields')
      continue
    }
    typeExpr(arg.value, { columns: [], types: new Map(), collection: null }, ctx)
    if (ctx.diagnostics.length > 0) continue
    const value = evaluate(arg.value, {}, { params: ctx.params, now: new Date(), integerOps: ctx.integerOps, durationOps: ctx.durationOps })
    const converted = convertValue(value, param.type, param.optional, param.name, 'parameter')
    if (!converted.ok) report(ctx, arg.value.span, 'type_error', converted.error)
    else bound[param.name] = converted.value
  }
  for (const param of query.params) {
    if (param.name in bound) continue
    if (param.default !== null) bound[param.name] = param.default as Value
    else if (param.optional) bound[param.name] = null
    else report(ctx, source.span, 'type_error', `query '${query.name}' needs parameter '${param.name}'`)
  }
  const parsed = parse(query.body, 'query').statements[0]
  if (parsed === undefined || parsed.kind !== 'pipeline' || parsed.source.kind !== 'collection') {
    report(ctx, source.span, 'type_error', `query '${query.name}' must be a pipeline over a collection`)
    return null
  }
  // The body's parameters live in their own namespace ("query.param"), so they can
  // never collide with the caller's.
  const prefix = `${query.name}.`
  for (const [name, value] of Object.entries(bound)) ctx.params[prefix + name] = value
  const stages = renameParams(parsed.stages, prefix)
  const bodyCtx: CheckContext = { text: query.body, params: ctx.params, integerOps: ctx.integerOps, durationOps: ctx.durationOps, diagnostics: [], schema }
  const collection = findCollection(parsed.source.name, parsed.source.span, schema, bodyCtx)
  let shape = collectionShape(collection)
  stages.forEach((stage, i) => {
    shape = checkStage(stage, i, stages, shape, bodyCtx)
  })
  for (const inner of bodyCtx.diagnostics) {
    ctx.diagnostics.push(relocate(inner, ctx, source.span, query.name))
  }
  return { collection, stages }
}

function relocate(inner: Diagnostic, ctx: CheckContext, span: { from: number; to: number }, name: string): Diagnostic {
  const located: CheckContext = { ...ctx, diagnostics: [] }
  const extra = inner.hint === undefined ? {} : { hint: inner.hint }
  report(located, span, inner.code, `in query '${name}' (${inner.line}:${inner.column}): ${inner.message}`, extra)
  return located.diagnostics[0] as Diagnostic
}

function renameParams<T>(node: T, prefix: string): T {
  if (Array.isArray(node)) return node.map((item) => renameParams(item, prefix)) as T
  if (node === null || typeof node !== 'object') return node
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) copy[key] = renameParams(value, prefix)
  if (copy.kind === 'param' && typeof copy.name === 'string') copy.name = prefix + copy.name
  return copy as T
}
