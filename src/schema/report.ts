// Collecting diagnostics while building the IR: every problem in every file is found
// before the build fails, each with the file it is in.
import type { Span } from '../lang/ast.js'
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../lang/diagnostic.js'
import type { SchemaDiagnostic } from './schema-error.js'

export interface SourceFile {
  name: string
  source: string
}

export class Reporter {
  readonly diagnostics: SchemaDiagnostic[] = []

  error(
    file: SourceFile,
    span: Span,
    message: string,
    code: DiagnosticCode = 'type_error',
    extra: Pick<Diagnostic, 'hint'> = {},
  ): void {
    this.diagnostics.push({ ...diagnostic(file.source, span, code, message, extra), file: file.name })
  }
}

/**
 * The span of the `nth` (0-based) `name` as written inside `within`, after the keyword
 * `after` when given, for names the AST keeps without a span (index fields, `was`
 * names); the whole span when it cannot be found.
 */
export function nameSpan(text: string, within: Span, name: string, options: { after?: string; nth?: number } = {}): Span {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const lead = options.after === undefined ? '(?<![\\w$])' : `\\b${options.after}\\s+`
  const pattern = new RegExp(`${lead}(\`?)(${escaped})\\1(?![\\w$])`, 'g')
  const slice = text.slice(within.from, within.to)
  let match: RegExpExecArray | null = null
  for (let i = 0; i <= (options.nth ?? 0); i += 1) {
    match = pattern.exec(slice)
    if (match === null) return within
  }
  if (match === null) return within
  const quotes = (match[1] ?? '').length * 2
  const from = within.from + match.index + match[0].length - name.length - quotes
  return { from, to: from + name.length + quotes }
}
