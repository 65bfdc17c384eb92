// "in where", "in field email": the construct a syntax error sits in. Found by parsing
// the text before the error (a valid prefix, so the tree is trustworthy) and walking
// up from its last token.
import { eelParser, type SyntaxNode, type Top } from './parse-tree.js'

export interface ErrorContext {
  /** The construct, as in "unexpected '=' in where"; undefined at the top level. */
  label: string | undefined
  /** End of the last token before the error, or 0. */
  lastTokenEnd: number
  /** The innermost node of that last token, in the tree of the text before the error. */
  lastNode: SyntaxNode | undefined
}

const labels: Record<string, string> = {
  WhereStage: 'where',
  SelectStage: 'select',
  SortStage: 'sort',
  SkipStage: 'skip',
  TakeStage: 'take',
  CountStage: 'count',
  AggregateStage: 'aggregate',
  DistinctStage: 'distinct',
  GetStage: 'get',
  UpdateStage: 'update',
  DeleteStage: 'delete',
  InsertStatement: 'insert',
  UpsertStatement: 'upsert',
  AtomicBlock: 'atomic',
  ExplainStatement: 'explain',
  IndexDeclaration: 'index',
}

/** Child node names that give a construct its name in the label. */
const namedBy: Record<string, [string, string]> = {
  CallSource: ['call', 'QueryName'],
  FieldDeclaration: ['field', 'FieldName'],
  CollectionDeclaration: ['collection', 'CollectionName'],
  QueryDeclaration: ['query', 'QueryName'],
}

export function errorContext(text: string, at: number, top: Top): ErrorContext {
  const prefix = text.slice(0, at)
  const tree = eelParser(top, false).parse(prefix)
  let lastTokenEnd = 0
  // Error recovery may stretch the open nodes to the end of the prefix, so only
  // real tokens (non-empty leaves) count.
  tree.iterate({
    enter(node) {
      if (node.type.isError || node.name === 'Comment') return false
      if (node.to > lastTokenEnd && node.from < node.to && node.node.firstChild === null) lastTokenEnd = node.to
      return true
    },
  })
  if (lastTokenEnd === 0) return { label: undefined, lastTokenEnd, lastNode: undefined }
  const lastNode = tree.resolveInner(lastTokenEnd, -1)
  for (let node: SyntaxNode | null = lastNode; node !== null; node = node.parent) {
    const label = labelOf(node, prefix)
    if (label !== undefined) return { label, lastTokenEnd, lastNode }
  }
  return { label: undefined, lastTokenEnd, lastNode }
}

function labelOf(node: SyntaxNode, text: string): string | undefined {
  const simple = labels[node.name]
  if (simple !== undefined) return simple
  if (node.name === 'TenantStatement') {
    const verb = node.firstChild?.nextSibling
    return verb === null || verb === undefined || !/^[a-z]+$/.test(verb.name) ? 'tenant' : `tenant ${verb.name}`
  }
  const named = namedBy[node.name]
  if (named === undefined) return undefined
  const child = node.getChild(named[1])
  return child === null ? named[0] : `${named[0]} ${text.slice(child.from, child.to)}`
}
