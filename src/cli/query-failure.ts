// A statement that failed, as `tenantdb query` prints it: the code, the line and column
// of an Eel diagnostic with the statement's line and a caret under the place, and the
// hint (docs/language.md, "Diagnostics"). The same from an embedded database (EelError,
// QueryError, TenantError, EngineError) and from a server (the client's TenantdbError,
// which carries its error body).
import { CodedError } from '../coded-error.js'
import { EelError } from '../lang/diagnostic.js'
import { TenantdbError } from '../client/index.js'

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

  /** An error of running a statement, embedded or on a server; anything else (a bug) is returned as it is. */
  static of(err: unknown): StatementFailure | unknown {
    if (err instanceof TenantdbError) return StatementFailure.fromRefusal(err)
    if (err instanceof EelError) {
      const d = err.diagnostic
      return new StatementFailure(d.code, d.message, { line: d.line, column: d.column, length: Math.max(1, d.to - d.from) }, d.hint)
    }
    if (err instanceof CodedError) return new StatementFailure(err.code, err.message, undefined, undefined)
    return err
  }

  /** A server's refusal: an Eel error's body gives its position, `what` and `hint` as fields (docs/api.md, "Errors"). */
  static fromRefusal(err: TenantdbError): StatementFailure {
    const { line, column, what, hint } = err.details as { line?: number; column?: number; what?: string; hint?: string }
    if (line === undefined || column === undefined) return new StatementFailure(err.code, err.message, undefined, undefined)
    return new StatementFailure(err.code, what ?? err.message, { line, column, length: 1 }, hint)
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
