// Diagnostics in the editor. While typing, the editor checks syntax with the same
// code the server runs (src/lang's syntaxDiagnostics: same grammar, same messages).
// After a run, the server's own diagnostics (which also cover types, fields and
// collections) replace them until the text changes. One list feeds both the inline
// marks and the text under the editor, so the two always agree.
import { linter, type Diagnostic as LintDiagnostic } from '@codemirror/lint'
import { StateEffect, StateField, type EditorState, type Extension, type Text } from '@codemirror/state'
import { syntaxDiagnostics } from '../../../src/lang/index.js'
import type { ErrorBody } from '../api/types.js'

export interface EelProblem {
  line: number
  column: number
  from: number
  to: number
  code: string
  message: string
  hint?: string
  /** 'server' after a run; 'editor' from the check while typing. */
  source: 'server' | 'editor'
}

const setServerProblems = StateEffect.define<EelProblem[]>()

const server_problems = StateField.define<EelProblem[]>({
  create: () => [],
  update(value, tr) {
    for (const effect of tr.effects) if (effect.is(setServerProblems)) return effect.value
    return tr.docChanged ? [] : value
  },
})

/**
 * The server's sentence without what the console shows beside it: an Eel error's body
 * gives it as `what`, the position and the hint as their own fields (docs/api.md,
 * "Errors"); any other error's sentence is shown whole.
 */
export function plainMessage(body: ErrorBody): string {
  return body.what ?? body.error
}

/**
 * The effect that shows a failed run's error (with its line and column) in the editor.
 * `column_offset`: characters of line 1 of the query the server saw that precede the
 * editor's text (the data browser's filter sits inside a query it writes around it).
 */
export function serverProblemEffect(doc: Text, body: ErrorBody | null, column_offset = 0): StateEffect<EelProblem[]> {
  if (body === null || body.line === undefined || body.column === undefined) return setServerProblems.of([])
  const column = body.line === 1 ? Math.max(1, body.column - column_offset) : body.column
  const line = doc.line(Math.min(Math.max(1, body.line), doc.lines))
  const from = Math.min(line.to, line.from + Math.max(0, column - 1))
  return setServerProblems.of([{
    line: body.line, column, from, to: tokenEnd(doc, from), code: body.code, message: plainMessage(body),
    ...(body.hint === undefined ? {} : { hint: body.hint }), source: 'server',
  }])
}

/** Where the token starting at `from` ends, so the mark covers it (at least one character). */
function tokenEnd(doc: Text, from: number): number {
  const rest = doc.sliceString(from, Math.min(doc.length, from + 200))
  const match = /^(?:[A-Za-z_$][\w]*|"[^"\n]*"?|[=!<>|&]+|\d+(?:\.\d+)?|\S)/.exec(rest)
  return from + (match?.[0].length ?? 0)
}

export function currentProblems(state: EditorState, mode: 'query' | 'expression' = 'query'): EelProblem[] {
  const server = state.field(server_problems)
  if (server.length > 0) return server
  const text = state.doc.toString()
  if (text.trim() === '') return []
  return syntaxDiagnostics(text, mode).map((d) => ({
    line: d.line, column: d.column, from: d.from, to: Math.max(d.to, d.from), code: d.code, message: d.message,
    ...(d.hint === undefined ? {} : { hint: d.hint }), source: 'editor' as const,
  }))
}

export function describeProblem(p: EelProblem): string {
  return `line ${p.line}, column ${p.column}: ${p.message}${p.hint === undefined ? '' : ` (${p.hint})`}`
}

/** The lint extension; `onProblems` hears every list it shows. `mode` 'expression' checks one expression (a filter). */
export function eelLint(onProblems: (problems: EelProblem[]) => void, mode: 'query' | 'expression' = 'query'): Extension {
  return [
    server_problems,
    linter((view) => {
      const problems = currentProblems(view.state, mode)
      onProblems(problems)
      return problems.map((p): LintDiagnostic => ({
        from: p.from, to: p.to, severity: 'error', source: p.source === 'server' ? 'server' : 'eel', message: describeProblem(p),
      }))
    }, {
      delay: 300,
      needsRefresh: (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(setServerProblems))),
    }),
  ]
}
