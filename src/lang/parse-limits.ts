// lezer refuses trees that would be too deep to walk: nesting beyond about 2800
// levels, and left-associative chains of more than 300 operators once they span
// 2000 characters (`a or b or c …`). The parse then stops at a token that is
// otherwise fine; this recognizes those cases so the message can say why.
import { skipTrivia, tokenAt } from './parse-scan.js'

const maxDepth = 2700
const maxChain = 300
const minChainLength = 2000

const openers = new Set(['(', '[', '{'])
const closers = new Set([')', ']', '}'])
const separators = new Set(['|', ',', ':', ';', '='])
const operators = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'and', 'or', 'in', 'not'])

export interface LimitHit {
  message: string
  hint: string
}

/** Whether the parse of `text` stopping at `at` is lezer's depth limit rather than a mistake. */
export function parseLimitAt(text: string, at: number): LimitHit | undefined {
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
  const depth = chains.length - 1
  const chain = chains[depth] ?? { count: 0, start: 0 }
  if (depth >= maxDepth) {
    return { message: `expression nested ${depth} levels deep is too deep to parse`, hint: 'flatten it' }
  }
  if (chain.count >= maxChain && at - chain.start >= minChainLength) {
    return {
      message: `expression of ${chain.count} chained operators is too long to parse`,
      hint: 'use x in [a, b, …] for many alternatives, or split it',
    }
  }
  return undefined
}
