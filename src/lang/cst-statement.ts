// Statements and pipeline stages: lezer nodes to `Statement`.
import type { AggregateFn, AggregateItem, Returning, SelectItem, Source, Stage, Statement, TenantOp } from './ast.js'
import { didYouMean } from './diagnostic.js'
import { buildExpr, expressionNodes, expressions, recordFields } from './cst-expr.js'
import { child, children, has, span, type Cst } from './cst-node.js'
import { buildCollection, buildDroppedCollection, buildQueryDecl } from './cst-schema.js'
import type { SyntaxNode } from './parse-tree.js'

export const statementNodes: ReadonlySet<string> = new Set([
  'Pipeline', 'InsertStatement', 'UpsertStatement', 'ExplainStatement', 'AtomicBlock',
  'CollectionDeclaration', 'DroppedCollection', 'QueryDeclaration', 'TenantStatement',
])

export function buildStatement(cx: Cst, node: SyntaxNode): Statement {
  switch (node.name) {
    case 'Pipeline':
      return buildPipeline(cx, node)
    case 'InsertStatement':
    case 'UpsertStatement': {
      const collection = child(node, 'CollectionName')
      return {
        kind: node.name === 'InsertStatement' ? 'insert' : 'upsert',
        collection: cx.name(collection),
        collectionSpan: span(collection),
        rows: buildExpr(cx, child(node, expressionNodes)),
        returning: returning(cx, node),
        span: span(node),
      }
    }
    case 'ExplainStatement':
      return { kind: 'explain', statement: buildStatement(cx, child(node, statementNodes)), span: span(node) }
    case 'AtomicBlock':
      return { kind: 'atomic', statements: children(node, statementNodes).map((s) => buildStatement(cx, s)), span: span(node) }
    case 'CollectionDeclaration':
      return buildCollection(cx, node)
    case 'DroppedCollection':
      return buildDroppedCollection(cx, node)
    case 'QueryDeclaration':
      return buildQueryDecl(cx, node, buildPipeline(cx, child(node, 'Pipeline')))
    case 'TenantStatement':
      return buildTenantOp(cx, node)
    default:
      throw new Error(`eel: ${node.name} is not a statement`)
  }
}

export function buildPipeline(cx: Cst, node: SyntaxNode): Statement & { kind: 'pipeline' } {
  const stages = children(node).filter((n) => n.name.endsWith('Stage')).map((n) => buildStage(cx, n))
  return { kind: 'pipeline', source: buildSource(cx, child(node, new Set(['CollectionName', 'CallSource']))), stages, span: span(node) }
}

function buildSource(cx: Cst, node: SyntaxNode): Source {
  if (node.name === 'CollectionName') return { kind: 'collection', name: cx.name(node), span: span(node) }
  const name = child(node, 'QueryName')
  const args = children(node, 'Argument').map((arg) => {
    const label = child(arg, 'Label')
    return { name: cx.name(label), nameSpan: span(label), value: buildExpr(cx, child(arg, expressionNodes)) }
  })
  return { kind: 'call', name: cx.name(name), nameSpan: span(name), args, span: span(node) }
}

function buildStage(cx: Cst, node: SyntaxNode): Stage {
  const at = span(node)
  const one = (): ReturnType<typeof buildExpr> => buildExpr(cx, child(node, expressionNodes))
  switch (node.name) {
    case 'WhereStage': return { kind: 'where', predicate: one(), span: at }
    case 'SelectStage': return { kind: 'select', items: children(node, 'SelectItem').map((i) => selectItem(cx, i)), span: at }
    case 'SortStage':
      return {
        kind: 'sort',
        keys: children(node, 'SortKey').map((key) => ({
          expr: buildExpr(cx, child(key, expressionNodes)), descending: has(key, 'desc'), span: span(key),
        })),
        span: at,
      }
    case 'SkipStage': return { kind: 'skip', count: one(), span: at }
    case 'TakeStage': return { kind: 'take', count: one(), span: at }
    case 'CountStage': return { kind: 'count', span: at }
    case 'AggregateStage': {
      const by = children(node, 'GroupBy')[0]
      return {
        kind: 'aggregate',
        items: children(node, 'AggregateItem').map((i) => aggregateItem(cx, i)),
        by: by === undefined ? [] : expressions(cx, by),
        span: at,
      }
    }
    case 'DistinctStage': return { kind: 'distinct', fields: expressions(cx, node), span: at }
    case 'GetStage': return { kind: 'get', key: one(), span: at }
    case 'UpdateStage': return { kind: 'update', set: recordFields(cx, child(node, 'Record')), returning: returning(cx, node), span: at }
    case 'DeleteStage': return { kind: 'delete', returning: returning(cx, node), span: at }
    case 'LookupStage': return lookupStage(cx, node)
    default: throw new Error(`eel: ${node.name} is not a stage`)
  }
}

function lookupStage(cx: Cst, node: SyntaxNode): Stage {
  const collection = child(node, 'CollectionName')
  const on = buildExpr(cx, child(node, expressionNodes))
  const right = on.kind === 'binary' ? on.right : undefined
  let field = ''
  let fieldSpan = on.span
  if (on.kind !== 'binary' || on.op !== '==' || right?.kind !== 'field' || right.path.length !== 1) {
    cx.report(on.span, 'lookup … on takes an equality: an expression of the incoming row == a field of the looked-up collection', {
      hint: `as in lookup author: ${cx.name(collection)} on author == id`,
    })
  } else {
    field = right.path[0] as string
    fieldSpan = right.span
  }
  return {
    kind: 'lookup',
    name: cx.name(child(node, 'Label')),
    collection: cx.name(collection),
    collectionSpan: span(collection),
    inner: has(node, 'inner'),
    many: has(node, 'many'),
    left: on.kind === 'binary' ? on.left : on,
    field,
    fieldSpan,
    span: span(node),
  }
}

function returning(cx: Cst, node: SyntaxNode): Returning | null {
  const found = children(node, 'Returning')[0]
  if (found === undefined) return null
  const items = children(found, 'SelectItem')
  if (items.length === 0) return { kind: 'all', span: span(found) }
  return { kind: 'items', items: items.map((i) => selectItem(cx, i)), span: span(found) }
}

function selectItem(cx: Cst, node: SyntaxNode): SelectItem {
  const expr = buildExpr(cx, child(node, expressionNodes))
  const label = children(node, 'Label')[0]
  if (label !== undefined) return { name: cx.name(label), expr, span: span(node) }
  if (expr.kind === 'field') return { name: expr.path[expr.path.length - 1] ?? '', expr, span: span(node) }
  cx.report(span(node), 'a computed column needs a name', { hint: `write name: ${cx.source(node)}` })
  return { name: '', expr, span: span(node) }
}

export const aggregateFns: readonly AggregateFn[] = ['count', 'count_distinct', 'sum', 'min', 'max', 'avg']

function aggregateItem(cx: Cst, node: SyntaxNode): AggregateItem {
  const fnNode = child(node, 'AggregateFunction')
  const fn = cx.source(fnNode)
  const argNode = children(node, expressionNodes)[0]
  const arg = argNode === undefined ? null : buildExpr(cx, argNode)
  if (!(aggregateFns as readonly string[]).includes(fn)) {
    const hint = didYouMean(fn, aggregateFns)
    cx.report(span(fnNode), `unknown aggregate function '${fn}'; expected count, count_distinct, sum, min, max or avg`, {
      found: `'${fn}'`, expected: [...aggregateFns], ...(hint === undefined ? {} : { hint }),
    })
  } else if (fn !== 'count' && arg === null) {
    cx.report(span(node), `${fn}() needs an argument`, { hint: `as in ${fn}(amount)` })
  }
  return { name: cx.name(child(node, 'Label')), fn: fn as AggregateFn, arg, span: span(node) }
}

/** `name = value, …` of `tenant limit`; a name twice is reported, as a record's field is. */
function limitSettings(cx: Cst, node: SyntaxNode): Record<string, number | null> {
  const out: Record<string, number | null> = {}
  for (const setting of children(node, 'LimitSetting')) {
    const name = cx.name(child(setting, 'LimitName'))
    if (Object.hasOwn(out, name)) cx.report(span(setting), `limit ${name} is set twice`)
    const [number] = children(setting, 'Number')
    // A number that is no whole number in range is refused by the operation, in its words.
    out[name] = number === undefined ? null : Number(cx.source(number))
  }
  return out
}

function buildTenantOp(cx: Cst, node: SyntaxNode): TenantOp {
  const [, verb] = children(node)
  const tenants = children(node, 'TenantName').map((n) => cx.name(n))
  const snapshot = children(node, 'SnapshotName').map((n) => cx.name(n))[0] ?? null
  const name = tenants[0] ?? ''
  const at = span(node)
  switch (verb?.name) {
    case 'fork': return { kind: 'tenant_op', op: 'fork', name, snapshot, target: tenants[1] ?? '', span: at }
    case 'snapshot': return { kind: 'tenant_op', op: 'snapshot', name, target: snapshot ?? '', span: at }
    case 'delete': return { kind: 'tenant_op', op: 'delete', name, snapshot, span: at }
    case 'restore': return { kind: 'tenant_op', op: 'restore', name, snapshot: snapshot ?? '', span: at }
    case 'limit': return { kind: 'tenant_op', op: 'limit', name, limits: limitSettings(cx, node), span: at }
    case 'create': case 'suspend': case 'resume': case 'compact':
      return { kind: 'tenant_op', op: verb.name, name, span: at }
    default: throw new Error('eel: malformed TenantStatement')
  }
}
