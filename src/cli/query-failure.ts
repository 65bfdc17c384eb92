// A statement that failed, as `tenantdb query` prints it: the code, the line and column
// of an Eel diagnostic with the statement's line and a caret under the place, and the
// hint (docs/language.md, "Diagnostics"). The same from an embedded database (EelError,
// QueryError, TenantError, EngineError) and from a server (its error body).
import { CodedError } from '../coded-error.js'
import { EelError } from '../lang/diagnostic.js'
import type { ErrorBody } from './server-client.js'

export class StatementFailure extends CodedError {
  constructor(
    code: string,
    /** What is wrong, without the position or the hint. */
    readonly what: string,
    readonly at: { line: number; column: number; length: number } | undefined,
    readonly hint: string | undefined,
  ) {
    super(code, what)
  }

  /** An error of running a statement embedded; anything else (a bug) is returned as it is. */
  static of(err: unknown): StatementFailure | unknown {
    if (err instanceof EelError) {
      const d = err.diagnostic
      return new StatementFailure(d.code, d.message, { line: d.line, column: d.column, length: Math.max(1, d.to - d.from) }, d.hint)
    }
    if (err instanceof CodedError) return new StatementFailure(err.code, err.message, undefined, undefined)
    return err
  }

  /** A server's error body: an Eel error's gives its position, `what` and `hint` as fields (docs/api.md, "Errors"). */
  static fromBody(body: ErrorBody): StatementFailure {
    if (body.line === undefined || body.column === undefined) return new StatementFailure(body.code, body.error, undefined, undefined)
    return new StatementFailure(body.code, body.what ?? body.error, { line: body.line, column: body.column, length: 1 }, body.hint)
  }

  /**
   * `code at line:column: what`, the statement's line with a caret under the place, and
   * the hint: one string of lines, each ending in a newline.
   */
  render(text: string): string {
    if (this.at === undefined) return `${this.code}: ${this.what}\n`
    const { line, column, length } = this.at
    const source = text.split('\n')[line - 1] ?? ''
    // Tabs before the place stay tabs, so the caret lines up however they are shown.
    const pad = source.slice(0, column - 1).replace(/[^\t]/g, ' ')
    const width = Math.max(1, Math.min(length, source.length - (column - 1)))
    const lines = [`${this.code} at ${line}:${column}: ${this.what}`, `  ${source}`, `  ${pad}${'^'.repeat(width)}`]
    if (this.hint !== undefined) lines.push(`  hint: ${this.hint}`)
    return `${lines.join('\n')}\n`
  }
}
