// One shape for every Eel error, from the parser and the checker alike, used by the
// server (error bodies, docs/api.md, errors) and the console (inline lint). Positions are
// 1-based; `column` counts UTF-16 code units, as editors do.
import { CodedError } from '../coded-error.js'
import type { Span } from './ast.js'

export type DiagnosticCode =
  | 'syntax_error'
  | 'type_error'
  | 'unknown_collection'
  | 'unknown_field'
  | 'not_allowed_here'

export interface Diagnostic {
  code: DiagnosticCode
  /** What is wrong, without the position: "unexpected '=' in where; expected '=='". */
  message: string
  line: number
  column: number
  from: number
  to: number
  /** What was found there, as written ("'='", "end of input"). */
  found?: string
  /** What would have been accepted there. */
  expected?: string[]
  /** How to fix the common mistake: "use == to compare, : to name a field". */
  hint?: string
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < text.length; i += 1) {
    if (text.charCodeAt(i) === 10) {
      line += 1
      lineStart = i + 1
    }
  }
  return { line, column: Math.min(offset, text.length) - lineStart + 1 }
}

export function diagnostic(
  text: string,
  span: Span,
  code: DiagnosticCode,
  message: string,
  extra: Pick<Diagnostic, 'found' | 'expected' | 'hint'> = {},
): Diagnostic {
  return { code, message, ...lineColumn(text, span.from), from: span.from, to: span.to, ...extra }
}

/** "1:19 unexpected '=' in where; expected '==' (use == to compare, : to name a field)" */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.line}:${d.column} ${d.message}${d.hint === undefined ? '' : ` (${d.hint})`}`
}

/**
 * Thrown by parse and check; carries the first diagnostic (and any others found). Its
 * code is the first diagnostic's, its details that diagnostic's position, `what` (the
 * sentence without the position and the hint), `expected` and `hint` (what an error
 * body adds: docs/api.md, "Errors").
 */
export class EelError extends CodedError<DiagnosticCode> {
  readonly diagnostic: Diagnostic
  readonly diagnostics: Diagnostic[]

  constructor(diagnostics: Diagnostic[]) {
    const first = diagnostics[0]
    if (first === undefined) throw new Error('an EelError needs a diagnostic')
    super(first.code, formatDiagnostic(first), positionDetails(first))
    this.diagnostic = first
    this.diagnostics = diagnostics
  }
}

function positionDetails(d: Diagnostic): Record<string, unknown> {
  return {
    line: d.line,
    column: d.column,
    what: d.message,
    ...(d.expected === undefined ? {} : { expected: d.expected }),
    ...(d.hint === undefined ? {} : { hint: d.hint }),
  }
}

/** "did you mean 'users'?" for a near miss among `candidates`, or undefined. */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best === undefined ? undefined : `did you mean '${best}'?`
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i]
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}
