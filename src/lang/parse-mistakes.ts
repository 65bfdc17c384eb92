// The common mistakes (`=` for `==`, `&&`, 'single quotes', a missing `|`, a keyword
// as a name…), recognized from what was found and what the grammar would accept,
// with the hint that fixes each.
import { didYouMean } from './diagnostic.js'
import type { ErrorContext } from './parse-context.js'
import { probes } from './parse-probe.js'
import { keywords, skipTrivia, stageKeywords, type Token } from './parse-scan.js'
import type { SyntaxNode, Top } from './parse-tree.js'

export interface Fix {
  /** Replaces the plain description of what was found ("keyword 'count'"). */
  found?: string
  /** Replaces the computed expectation when the intent is clear. */
  expected?: string[]
  hint?: string
  /** The statement before was complete: naming its construct would mislead. */
  statementDone?: boolean
}

const logicHint = 'use and, or, not for logic'

/** Keywords nobody means as a name: no backtick hint for these. */
const notNames: ReadonlySet<string> = new Set(['and', 'or', 'not', 'in', 'true', 'false', 'null', 'as', 'by'])

/** Recognizes the common mistakes and says how to fix them. */
export function recognizeMistake(
  text: string,
  top: Top,
  token: Token,
  accepted: ReadonlySet<string>,
  context: ErrorContext,
): Fix | undefined {
  return mistake(text, top, token, accepted, context) ?? misspelledStatement(text, context.lastNode)
}

function mistake(
  text: string,
  top: Top,
  token: Token,
  accepted: ReadonlySet<string>,
  { label: context, lastTokenEnd }: ErrorContext,
): Fix | undefined {
  const t = token.text
  const word = token.kind === 'word'
  const isKeyword = word && keywords.has(t)
  const followedByParen = text[skipTrivia(text, token.to)] === '('

  if (token.kind === 'single_quoted') {
    const inner = t.replace(/^'|'$/g, '')
    return { found: `single-quoted string ${shorten(t)}`, hint: `use double quotes for strings: ${JSON.stringify(inner)}` }
  }
  if (t === '=' && (accepted.has('==') || accepted.has(':'))) {
    return { expected: ['==', ':'].filter((e) => accepted.has(e)), hint: 'use == to compare, : to name a field' }
  }
  if (t === '==' && accepted.has(':')) return { expected: [':'], hint: 'use : to name a field, == to compare' }
  if ((t === '&&' || t === '&') && accepted.has('and')) return { expected: ['and'], hint: logicHint }
  if (t === '||' && accepted.has('or')) return { expected: ['or'], hint: logicHint }
  if (t === '!' && accepted.has('not')) return { expected: ['not'], hint: logicHint }
  if (t === '<>' && accepted.has('!=')) return { expected: ['!='], hint: 'use != for not equal' }
  if (t === 'not' && accepted.has('in')) return { hint: 'write not (x in [...]) to negate in' }
  if (context === 'aggregate' && ((t === '(' && accepted.has(':')) || (word && followedByParen && accepted.has(probes.name)))) {
    return { ...(isKeyword ? { found: `keyword '${t}'` } : {}), hint: 'name each aggregate, as in n: count()' }
  }
  if (isKeyword && stageKeywords.has(t) && accepted.has('|')) {
    return { expected: ['|'], hint: 'separate stages with |' }
  }
  if (isKeyword && stageKeywords.has(t) && accepted.has('insert')) {
    return { hint: `a pipeline starts with a collection, as in users | ${t} …` }
  }
  if (isKeyword && !notNames.has(t) && accepted.has(probes.name) && !accepted.has('insert')) {
    return { found: `keyword '${t}'`, hint: `write \`${t}\` to use a keyword as a name` }
  }
  if (word) {
    const suggestion = suggestKeyword(t, accepted)
    if (suggestion !== undefined) return { hint: suggestion }
  }
  const startsItem = word || t === '{' || t === '[' || ['quoted', 'number', 'string', 'param'].includes(token.kind)
  if (startsItem && accepted.has(',') && text.slice(lastTokenEnd, token.from).includes('\n')) {
    return { expected: [','], hint: "is a ',' missing at the end of the previous line?" }
  }
  if (t === ',' && accepted.has(')') && !accepted.has(',')) return { hint: 'lists are written in brackets: [1, 2]' }
  if (token.kind === 'symbol' && /^\p{L}/u.test(t)) {
    return { hint: 'names use ASCII letters, digits and _; write other names in backticks' }
  }
  if (top === 'Query' && accepted.has(probes.end) && accepted.size <= 2 && token.kind !== 'symbol') {
    return { hint: 'one statement at a time; atomic { …; … } runs several writes together', statementDone: true }
  }
  return undefined
}

/** "did you mean 'desc'?" when a word is close to a keyword that fits here. */
function suggestKeyword(word: string, accepted: ReadonlySet<string>): string | undefined {
  if (word.length < 3) return undefined
  const fitting = [...accepted].filter((a) => keywords.has(a))
  const close = didYouMean(word, fitting)
  if (close !== undefined) return close
  const lower = word.toLowerCase()
  const prefixed = fitting.find((k) => k.length >= 3 && (lower.startsWith(k) || k.startsWith(lower)))
  return prefixed === undefined ? undefined : `did you mean '${prefixed}'?`
}

const statementWords = ['collection', 'dropped', 'query', 'tenant', 'insert', 'upsert', 'explain', 'atomic', 'call']

/**
 * `cllection users {`: the misspelled keyword was read as a collection to query (in
 * a schema file, `users` then starts a second one).
 */
function misspelledStatement(text: string, last: SyntaxNode | undefined): Fix | undefined {
  let pipeline = last?.parent
  for (let i = 0; i < 2 && pipeline?.name === 'Pipeline'; i += 1, pipeline = pipeline.prevSibling) {
    const source = pipeline.firstChild
    if (source?.name !== 'CollectionName' || source.to !== pipeline.to) return undefined
    const word = text.slice(source.from, source.to)
    const meant = statementWords.find((k) => distance(word.toLowerCase(), k) <= Math.max(1, Math.floor(k.length / 4)))
    if (meant !== undefined) return { hint: `'${word}' reads as a collection name; did you mean '${meant}'?` }
  }
  return undefined
}

/** Edit distance counting a swap of neighbours as one edit, for the short words above. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1)
      const row = d[i]
      if (row !== undefined) row[j] = best
    }
  }
  return at(a.length, b.length)
}

export function shorten(text: string): string {
  return text.length > 24 ? `${text.slice(0, 23)}…` : text
}
