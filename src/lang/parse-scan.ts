// A tiny lexer over raw text, used only to describe what a diagnostic found: the
// grammar's tokenizer says where parsing stopped, this says what is written there,
// including things the grammar has no token for (`&&`, 'single quotes').

export const keywords: ReadonlySet<string> = new Set([
  'where', 'select', 'sort', 'asc', 'desc', 'skip', 'take', 'count', 'aggregate', 'by',
  'distinct', 'get', 'update', 'delete', 'call', 'insert', 'upsert', 'explain', 'atomic',
  'collection', 'was', 'primary', 'unique', 'narrowed', 'index', 'dropped', 'query',
  'tenant', 'create', 'suspend', 'resume', 'compact', 'fork', 'snapshot', 'restore', 'as', 'returning',
  'lookup', 'inner', 'many', 'on', 'ref', 'refuse', 'cascade', 'set',
  'and', 'or', 'not', 'in', 'true', 'false', 'null',
])

export const stageKeywords: ReadonlySet<string> = new Set([
  'where', 'select', 'sort', 'skip', 'take', 'count', 'aggregate', 'distinct', 'get', 'update', 'delete', 'lookup',
])

export type TokenKind =
  | 'end'
  | 'word'
  | 'quoted'
  | 'unterminated_quoted'
  | 'number'
  | 'string'
  | 'unterminated_string'
  | 'single_quoted'
  | 'param'
  | 'symbol'

export interface Token {
  kind: TokenKind
  text: string
  from: number
  to: number
}

/** The offset of the first character at or after `pos` that is not whitespace or a comment. */
export function skipTrivia(text: string, pos: number): number {
  let i = pos
  while (i < text.length) {
    const ch = text[i]
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') i += 1
    } else if (ch !== undefined && /\s/.test(ch)) {
      i += 1
    } else {
      break
    }
  }
  return i
}

const symbols = ['==', '!=', '<=', '>=', '<>', '&&', '||']

const patterns: Array<[TokenKind, RegExp]> = [
  ['word', /[A-Za-z_][A-Za-z0-9_]*/y],
  ['number', /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y],
  ['param', /\$[A-Za-z_][A-Za-z0-9_]*/y],
  ['string', /"(?:[^\\\n"]|\\[^\n])*"/y],
  ['unterminated_string', /"(?:[^\\\n"]|\\[^\n])*\\?/y],
  ['quoted', /`[^`\n]+`/y],
  ['unterminated_quoted', /`[^`\n]*/y],
  ['single_quoted', /'[^'\n]*'?/y],
]

/** The token that starts at `from` (which must not be trivia). */
export function tokenAt(text: string, from: number): Token {
  if (from >= text.length) return { kind: 'end', text: '', from: text.length, to: text.length }
  for (const [kind, pattern] of patterns) {
    pattern.lastIndex = from
    const match = pattern.exec(text)
    if (match !== null && match[0].length > 0) return { kind, text: match[0], from, to: from + match[0].length }
  }
  const symbol = symbols.find((s) => text.startsWith(s, from)) ?? String.fromCodePoint(text.codePointAt(from) ?? 0)
  return { kind: 'symbol', text: symbol, from, to: from + symbol.length }
}
