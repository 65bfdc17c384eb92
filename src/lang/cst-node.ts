// Shared by the CST→AST builders: reading nodes of an error-free lezer tree, and
// collecting the diagnostics the grammar cannot express (bad escapes, unknown
// types, repeated modifiers…).
import type { Span } from './ast.js'
import { diagnostic, type Diagnostic, type DiagnosticCode } from './diagnostic.js'
import type { SyntaxNode } from './parse-tree.js'

export class Cst {
  readonly diagnostics: Diagnostic[] = []
  /** Expression tree depth while building (eel_expression_depth_max). */
  depth = 0
  /** Brackets and prefix operators around the node being built (eel_nesting_depth_max). */
  nesting = 0
  /** Set once a depth diagnostic was reported: one is enough. */
  tooDeep = false

  constructor(readonly text: string) {}

  source(node: SyntaxNode): string {
    return this.text.slice(node.from, node.to)
  }

  /** A name as meant: `backticks` removed. */
  name(node: SyntaxNode): string {
    const raw = this.source(node)
    return raw.startsWith('`') ? raw.slice(1, -1) : raw
  }

  report(
    at: Span,
    message: string,
    extra: Pick<Diagnostic, 'found' | 'expected' | 'hint'> = {},
    code: DiagnosticCode = 'syntax_error',
  ): void {
    this.diagnostics.push(diagnostic(this.text, at, code, message, extra))
  }
}

export function span(node: SyntaxNode): Span {
  return { from: node.from, to: node.to }
}

/** Children that carry meaning: comments left out, and only `names` if given. */
export function children(node: SyntaxNode, names?: ReadonlySet<string> | string): SyntaxNode[] {
  const out: SyntaxNode[] = []
  for (let c = node.firstChild; c !== null; c = c.nextSibling) {
    if (c.name === 'Comment') continue
    if (names === undefined || (typeof names === 'string' ? c.name === names : names.has(c.name))) out.push(c)
  }
  return out
}

/** A child the grammar guarantees (the tree is error-free when it is built). */
export function child(node: SyntaxNode, name: string | ReadonlySet<string>): SyntaxNode {
  const found = children(node, name)[0]
  if (found === undefined) throw new Error(`eel: ${node.name} without ${String(name)}`)
  return found
}

export function has(node: SyntaxNode, name: string): boolean {
  return children(node, name).length > 0
}
