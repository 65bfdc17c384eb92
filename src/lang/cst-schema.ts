// Schema declarations and types: lezer nodes to the declaration statements.
import type { CollectionDecl, DropCollectionDecl, FieldDecl, QueryDecl, Statement, TypeExpr } from './ast.js'
import { didYouMean } from './diagnostic.js'
import { buildExpr, expressionNodes, nestingTooDeep } from './cst-expr.js'
import { child, children, span, type Cst } from './cst-node.js'
import type { SyntaxNode } from './parse-tree.js'
import { eel_nesting_depth_max } from '../limits.js'

const typeNodes: ReadonlySet<string> = new Set(['TypeName', 'ListType', 'OptionalType', 'RefType'])
const typeNames = ['int', 'float', 'string', 'bool', 'timestamp', 'json'] as const

export function buildCollection(cx: Cst, node: SyntaxNode): CollectionDecl {
  const name = child(node, 'CollectionName')
  const members: CollectionDecl['members'] = []
  for (const member of children(node, new Set(['FieldDeclaration', 'IndexDeclaration', 'DroppedField']))) {
    if (member.name === 'FieldDeclaration') {
      members.push(buildField(cx, member))
    } else if (member.name === 'IndexDeclaration') {
      const fields = children(member, 'FieldName').map((f) => cx.name(f))
      if (fields.length === 0) cx.report(span(member), 'an index needs at least one field', { hint: 'as in index (status, created)' })
      members.push({ kind: 'index', fields, unique: children(member, 'unique').length > 0, span: span(member) })
    } else {
      members.push({ kind: 'dropped', name: cx.name(child(member, 'FieldName')), span: span(member) })
    }
  }
  return { kind: 'collection_decl', name: cx.name(name), nameSpan: span(name), was: previousName(cx, node), members, span: span(node) }
}

export function buildDroppedCollection(cx: Cst, node: SyntaxNode): DropCollectionDecl {
  return { kind: 'drop_collection_decl', name: cx.name(child(node, 'CollectionName')), span: span(node) }
}

export function buildQueryDecl(cx: Cst, node: SyntaxNode, body: Statement & { kind: 'pipeline' }): QueryDecl {
  const name = child(node, 'QueryName')
  const list = children(node, 'ParamList')[0]
  const params = (list === undefined ? [] : children(list, 'ParamDeclaration')).map((param) => ({
    name: cx.source(child(param, 'Param')).slice(1),
    type: buildType(cx, child(param, typeNodes)),
    default: defaultOf(cx, param),
    span: span(param),
  }))
  return { kind: 'query_decl', name: cx.name(name), nameSpan: span(name), params, body, span: span(node) }
}

function buildField(cx: Cst, node: SyntaxNode): FieldDecl {
  const seen = new Set<string>()
  for (const modifier of children(node, new Set(['primary', 'unique', 'narrowed', 'Default', 'Rename', 'OnDelete']))) {
    const word = modifier.name === 'Default' ? '=' : modifier.name === 'Rename' ? 'was' : modifier.name === 'OnDelete' ? 'on delete' : modifier.name
    if (seen.has(word)) cx.report(span(modifier), `'${word}' is given twice`, { found: `'${cx.source(modifier)}'` })
    seen.add(word)
  }
  return {
    kind: 'field',
    name: cx.name(child(node, 'FieldName')),
    type: buildType(cx, child(node, typeNodes)),
    primary: seen.has('primary'),
    unique: seen.has('unique'),
    default: defaultOf(cx, node),
    was: previousName(cx, node),
    narrowed: seen.has('narrowed'),
    onDelete: onDelete(node),
    span: span(node),
  }
}

function onDelete(node: SyntaxNode): FieldDecl['onDelete'] {
  const found = children(node, 'OnDelete')[0]
  if (found === undefined) return null
  const action = children(found, 'cascade').length > 0 ? 'cascade' : children(found, 'set').length > 0 ? 'set_null' : 'refuse'
  return { action, span: span(found) }
}

function defaultOf(cx: Cst, node: SyntaxNode): FieldDecl['default'] {
  const found = children(node, 'Default')[0]
  return found === undefined ? null : buildExpr(cx, child(found, expressionNodes))
}

function previousName(cx: Cst, node: SyntaxNode): string | null {
  const rename = children(node, 'Rename')[0]
  return rename === undefined ? null : cx.name(child(rename, 'PreviousName'))
}

export function buildType(cx: Cst, node: SyntaxNode): TypeExpr {
  const at = span(node)
  if (node.name === 'ListType') {
    // `[[[…]]]`: each list type is a level, as a list is in an expression (cst-expr.ts).
    if (cx.nesting >= eel_nesting_depth_max) {
      if (!cx.tooDeep) cx.report({ from: node.from, to: node.from + 1 }, nestingTooDeep().message, { hint: nestingTooDeep().hint })
      cx.tooDeep = true
      return { kind: 'json', span: at }
    }
    cx.nesting += 1
    try {
      return { kind: 'list', item: buildType(cx, child(node, typeNodes)), span: at }
    } finally {
      cx.nesting -= 1
    }
  }
  if (node.name === 'OptionalType') return { kind: 'optional', inner: buildType(cx, child(node, typeNodes)), span: at }
  if (node.name === 'RefType') return { kind: 'ref', collection: cx.name(child(node, 'CollectionName')), span: at }
  const name = cx.name(node)
  const known = typeNames.find((t) => t === name)
  if (known !== undefined) return { kind: known, span: at }
  const hint = didYouMean(name, typeNames)
  cx.report(at, `unknown type '${name}'; expected int, float, string, bool, timestamp or json`, {
    found: `'${name}'`, expected: [...typeNames], ...(hint === undefined ? {} : { hint }),
  })
  return { kind: 'json', span: at }
}
