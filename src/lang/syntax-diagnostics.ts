// Syntax errors as people want to read them: "1:19 unexpected '=' in where; expected
// '==' (use == to compare, : to name a field)". Needs nothing but the text, so the
// server and the browser console report the same thing.
import { diagnostic, type Diagnostic } from './diagnostic.js'
import { errorContext } from './parse-context.js'
import { describeExpected, formatExpected } from './parse-expected.js'
import { parseLimitAt } from './parse-limits.js'
import { recognizeMistake, shorten } from './parse-mistakes.js'
import { acceptedAt } from './parse-probe.js'
import { skipTrivia, tokenAt, type Token } from './parse-scan.js'
import { strictParse, topFor, type ParseMode, type Top } from './parse-tree.js'

/** The first syntax error of `text`, or [] when it parses. */
export function syntaxDiagnostics(text: string, mode: ParseMode | 'expression' = 'query'): Diagnostic[] {
  const top: Top = mode === 'expression' ? 'StandaloneExpression' : topFor(mode)
  const { failedAt } = strictParse(text, top)
  return failedAt === null ? [] : [syntaxError(text, failedAt, top)]
}

/** The diagnostic for a strict parse that stopped at `failedAt`. */
export function syntaxError(text: string, failedAt: number, top: Top): Diagnostic {
  let token = tokenAt(text, skipTrivia(text, failedAt))
  const limit = parseLimitAt(text, token.from)
  if (limit !== undefined) {
    const at = limit.at ?? token
    return diagnostic(text, { from: at.from, to: at.to }, 'syntax_error', limit.message, { hint: limit.hint })
  }
  let accepted = acceptedAt(text, token.from, top)
  const wide = widened(text, token)
  if (wide !== undefined) {
    const acceptedBefore = acceptedAt(text, wide.from, top)
    if (acceptedBefore.has(wide.text === '||' ? 'or' : '!=')) {
      token = wide
      accepted = acceptedBefore
    }
  }
  const context = errorContext(text, token.from, top)
  const span = { from: token.from, to: token.to }
  const found = token.kind === 'end' ? 'end of input' : token.kind === 'single_quoted' ? token.text : `'${shorten(token.text)}'`
  const unterminated = token.kind === 'unterminated_string' ? 'string' : token.kind === 'unterminated_quoted' ? 'quoted name' : undefined
  if (unterminated !== undefined) {
    const quote = token.text[0] ?? '"'
    const where = context.label === undefined ? '' : ` in ${context.label}`
    return diagnostic(text, span, 'syntax_error', `unterminated ${unterminated}${where}`, {
      found, expected: [quote], hint: `close it with ${quote} before the end of the line`,
    })
  }
  const fix = recognizeMistake(text, top, token, accepted, context)
  const where = context.label === undefined || fix?.statementDone === true ? '' : ` in ${context.label}`
  const expected = fix?.expected ?? describeExpected(accepted)
  const message = `unexpected ${fix?.found ?? found}${where}${expected.length === 0 ? '' : `; expected ${formatExpected(expected)}`}`
  return diagnostic(text, span, 'syntax_error', message, {
    found, expected, ...(fix?.hint === undefined ? {} : { hint: fix.hint }),
  })
}

/** `||` and `<>`: the parser took the first half as `|` or `<`, so it stopped at the second. */
function widened(text: string, token: Token): Token | undefined {
  const before = text[token.from - 1]
  if ((token.text === '|' && before === '|') || (token.text === '>' && before === '<')) {
    return { kind: 'symbol', text: `${before}${token.text}`, from: token.from - 1, to: token.to }
  }
  return undefined
}
