// Eel text to AST. Syntax errors become diagnostics (syntax-diagnostics.ts); the
// mode decides only which statements may stand at the top level. Names and types
// are checked later, against the schema (src/query/check/check.ts).
import type { Expr, Script, Statement } from './ast.js'
import { EelError, type Diagnostic } from './diagnostic.js'
import { buildExpr, expressionNodes } from './cst-expr.js'
import { child, children, span, Cst } from './cst-node.js'
import { buildStatement, statementNodes } from './cst-statement.js'
import { strictParse, topFor, type ParseMode, type Top, type Tree } from './parse-tree.js'
import { syntaxError } from './syntax-diagnostics.js'

export type { ParseMode } from './parse-tree.js'

/**
 * 'query': exactly one statement of any kind (the route decides what it runs).
 * 'statement': exactly one statement that is not a schema declaration (`db.run`).
 * 'schema': any number of declarations.
 */
export function parse(text: string, mode: ParseMode = 'query'): Script {
  const { script, diagnostics } = analyze(text, mode)
  if (script === null) throw new EelError(diagnostics)
  return script
}

/** One expression, as in a default value or a console field. */
export function parseExpression(text: string): Expr {
  const cx = new Cst(text)
  const tree = treeOrThrow(text, 'StandaloneExpression')
  const expr = buildExpr(cx, child(tree.topNode, expressionNodes))
  if (cx.diagnostics.length > 0) throw new EelError(cx.diagnostics)
  return expr
}

/** Every diagnostic `parse` would throw, or []: what an editor lints with. */
export function diagnose(text: string, mode: ParseMode = 'query'): Diagnostic[] {
  return analyze(text, mode).diagnostics
}

function analyze(text: string, mode: ParseMode): { script: Script | null; diagnostics: Diagnostic[] } {
  const top = topFor(mode)
  const result = strictParse(text, top)
  if (result.tree === null) return { script: null, diagnostics: [syntaxError(text, result.failedAt, top)] }
  const cx = new Cst(text)
  const statements = children(result.tree.topNode, statementNodes).map((node) => {
    const statement = buildStatement(cx, node)
    const refusal = refuse(statement, mode)
    if (refusal !== undefined) cx.report(span(node), refusal.message, { hint: refusal.hint }, 'not_allowed_here')
    return statement
  })
  return cx.diagnostics.length > 0 ? { script: null, diagnostics: cx.diagnostics } : { script: { statements }, diagnostics: [] }
}

function treeOrThrow(text: string, top: Top): Tree {
  const result = strictParse(text, top)
  if (result.tree === null) throw new EelError([syntaxError(text, result.failedAt, top)])
  return result.tree
}

const declarations: ReadonlySet<Statement['kind']> = new Set(['collection_decl', 'query_decl', 'drop_collection_decl'])

/** Why `statement` may not stand at the top level in `mode`, if it may not. */
function refuse(statement: Statement, mode: ParseMode): { message: string; hint: string } | undefined {
  const declaration = declarations.has(statement.kind)
  if (mode === 'statement' && declaration) {
    return { message: 'schema declarations cannot be run as statements', hint: 'put them in a schema file' }
  }
  if (mode !== 'schema' || declaration) return undefined
  switch (statement.kind) {
    case 'pipeline':
    case 'explain':
      return { message: 'queries cannot appear in a schema file', hint: 'declare a named query instead: query name() { … }' }
    case 'tenant_op':
      return { message: 'tenant operations cannot appear in a schema file', hint: 'run them with tenantdb query or POST /ops' }
    default:
      return { message: `${statement.kind === 'atomic' ? 'atomic blocks' : 'writes'} cannot appear in a schema file`, hint: 'a schema file holds collection and query declarations' }
  }
}
