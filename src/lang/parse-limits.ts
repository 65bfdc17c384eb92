// Where the parser (lezer) stops for a reason other than a mistake. It refuses trees
// too deep to walk: nesting beyond about 1000 levels, and left-associative chains of
// more than 300 operators once they span 2000 characters (`a or b or c …`). The parse
// then stops at a token that is otherwise fine; this recognizes those cases so the
// message can say why. Nesting is measured as the AST builder measures it
// (cst-expr.ts), so nesting over eel_nesting_depth_max gets the same diagnostic
// whether the parser stopped or not.
import { eel_nesting_depth_max } from '../limits.js'
import { nestingTooDeep } from './cst-expr.js'
import { keywords, skipTrivia, tokenAt, type Token } from './parse-scan.js'

const maxChain = 300
const minChainLength = 2000

const openers = new Set(['(', '[', '{'])
const closers = new Set([')', ']', '}'])
const separators = new Set(['|', ',', ':', ';', '='])
const operators = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'and', 'or', 'in', 'not'])
/** Words that end an operand, as a name does: after them a `-` is binary. */
const valueWords = new Set(['true', 'false', 'null'])

export interface LimitHit {
  message: string
  hint: string
  /** Where the limit was passed, when that is not where the parse stopped. */
  at?: Token
}

/** Whether the parse of `text` stopping at `at` is a depth limit rather than a mistake. */
export function parseLimitAt(text: string, at: number): LimitHit | undefined {
  const deep = nestingBeyondLimit(text, at)
  if (deep !== undefined) return { ...nestingTooDeep(), at: deep }
  if (at < minChainLength) return undefined
  // Per open bracket: operators chained at that level, and where the chain began.
  const chains: Array<{ count: number; start: number }> = [{ count: 0, start: 0 }]
  for (let pos = skipTrivia(text, 0); pos < at; pos = skipTrivia(text, pos)) {
    const token = tokenAt(text, pos)
    const chain = chains[chains.length - 1] ?? { count: 0, start: 0 }
    if (openers.has(token.text)) chains.push({ count: 0, start: token.to })
    else if (closers.has(token.text) && chains.length > 1) chains.pop()
    else if (operators.has(token.text)) chain.count += 1
    else if (separators.has(token.text)) Object.assign(chain, { count: 0, start: token.to })
    pos = token.to
  }
  const chain = chains[chains.length - 1] ?? { count: 0, start: 0 }
  if (chain.count >= maxChain && at - chain.start >= minChainLength) {
    return {
      message: `expression of ${chain.count} chained operators is too long to parse`,
      hint: 'use x in [a, b, …] for many alternatives, or split it',
    }
  }
  return undefined
}

/**
 * The first token before `at` that opens a level beyond eel_nesting_depth_max: a
 * bracket (for a call, the function's name), or a prefix `-` or `not`. A bracket
 * opens one level below the brackets and prefix operators around it; prefix
 * operators in a row add one level each, until an operand ends the row.
 */
function nestingBeyondLimit(text: string, at: number): Token | undefined {
  // Per open bracket: its level, and the prefix operators in a row since the last operand.
  const frames: Array<{ level: number; prefixes: number }> = [{ level: 0, prefixes: 0 }]
  let previous: Token | undefined
  let beforePrevious: Token | undefined
  // Inside `collection …` or `query …` up to its body's `{`: brackets of the statement itself.
  let declaring = false
  for (let pos = skipTrivia(text, 0); pos < at; pos = skipTrivia(text, pos)) {
    const token = tokenAt(text, pos)
    pos = token.to
    const frame = frames[frames.length - 1] as { level: number; prefixes: number }
    if (token.text === 'collection' || token.text === 'query') declaring = true
    if (openers.has(token.text)) {
      // A statement's own brackets (`atomic {`, `update {`, a declaration's body and
      // parameters, `call q(`, `index (`) hold expressions at the top level: no level of their own.
      const structural = declaring || ['atomic', 'update', 'index'].includes(previous?.text ?? '') || beforePrevious?.text === 'call'
      if (token.text === '{') declaring = false
      const level = frame.level + frame.prefixes + (structural ? 0 : 1)
      const call = token.text === '(' && previous !== undefined && endsOperand(previous) && previous.kind === 'word'
      if (level > eel_nesting_depth_max) return call ? previous : token
      frames.push({ level, prefixes: 0 })
    } else if (closers.has(token.text)) {
      if (frames.length > 1) frames.pop()
      const parent = frames[frames.length - 1] as { level: number; prefixes: number }
      parent.prefixes = 0
    } else if (isPrefix(text, token, previous)) {
      frame.prefixes += 1
      if (frame.level + frame.prefixes > eel_nesting_depth_max) return token
    } else if (token.text !== '-' || !negatesNumber(text, token)) {
      // An operand or a binary operator ends the row of prefixes (a folded `-3` is neither).
      if (endsOperand(token)) frame.prefixes = 0
    }
    beforePrevious = previous
    previous = token
  }
  return undefined
}

/** `not`, or a `-` that starts an operand and is not folded into a number literal. */
function isPrefix(text: string, token: Token, previous: Token | undefined): boolean {
  if (token.text === 'not') return true
  if (token.text !== '-' || (previous !== undefined && endsOperand(previous))) return false
  return !negatesNumber(text, token)
}

function negatesNumber(text: string, minus: Token): boolean {
  return tokenAt(text, skipTrivia(text, minus.to)).kind === 'number'
}

/** Whether `token` can end an operand: a literal, a parameter, a name, a closing bracket. */
function endsOperand(token: Token): boolean {
  switch (token.kind) {
    case 'number': case 'string': case 'param': case 'quoted': return true
    case 'word': return !keywords.has(token.text) || valueWords.has(token.text)
    default: return closers.has(token.text)
  }
}
