// The generated lezer parser, configured once per top rule. Everything else in
// src/lang reaches the grammar through here.
import type { LRParser } from '@lezer/lr'
import { parser } from './generated/parser.js'

/** 'query' and 'statement' parse one statement, 'schema' any number of them. */
export type ParseMode = 'query' | 'schema' | 'statement'

/** The grammar's top rules (eel.grammar). */
export type Top = 'Query' | 'Schema' | 'StandaloneExpression'

export type Tree = ReturnType<LRParser['parse']>
export type SyntaxNode = Tree['topNode']

export function topFor(mode: ParseMode): Top {
  return mode === 'schema' ? 'Schema' : 'Query'
}

const configured = new Map<string, LRParser>()

/** The parser for `top`; strict parsers throw at the first token they cannot take. */
export function eelParser(top: Top, strict: boolean): LRParser {
  const key = `${top}:${strict}`
  let found = configured.get(key)
  if (found === undefined) {
    found = parser.configure({ top, strict })
    configured.set(key, found)
  }
  return found
}

export type StrictResult = { tree: Tree; failedAt: null } | { tree: null; failedAt: number }

/**
 * Parses without error recovery. On failure, `failedAt` is where the parser stood:
 * the end of the last token (and trivia) it accepted.
 */
export function strictParse(text: string, top: Top): StrictResult {
  try {
    return { tree: eelParser(top, true).parse(text), failedAt: null }
  } catch (err) {
    const match = err instanceof SyntaxError ? /^No parse at (\d+)$/.exec(err.message) : null
    if (match === null) throw err
    return { tree: null, failedAt: Number(match[1]) }
  }
}
