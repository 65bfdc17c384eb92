// What the grammar would accept at a position, found by asking it: append each
// candidate token to the text before the position and see whether a strict parse
// gets past it. Slower than reading the parse tables, but exact, and it only runs
// for text that already failed to parse.
import { keywords } from './parse-scan.js'
import { eelParser, strictParse, type Top } from './parse-tree.js'

/** Probes that stand for a whole class of tokens. */
export const probes = {
  expression: '1',
  name: 'x',
  type: 'x?',
  param: '$p',
  end: '',
} as const

const punctuation = ['|', ',', ':', ';', '(', ')', '[', ']', '{', '}', '=', '?', '@', '.']
const operators = ['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%']

/**
 * Keywords that the grammar only accepts together with a representative: probing
 * the representative settles the group (saves a third of the probes).
 */
const implied: Record<string, readonly string[]> = {
  where: ['select', 'sort', 'skip', 'take', 'aggregate', 'distinct', 'get', 'update'],
  create: ['suspend', 'resume', 'compact', 'fork', 'snapshot', 'restore'],
}
const impliedWords = new Set(Object.values(implied).flat())
/** Literals start expressions, which the expression probe covers. */
const covered = new Set(['true', 'false', 'null'])

const candidates: readonly string[] = [
  ...Object.values(probes),
  ...punctuation,
  ...operators,
  ...[...keywords].filter((k) => !impliedWords.has(k) && !covered.has(k)),
]

/** Whether `candidate` can come at offset `at` of `text`. */
export function accepts(text: string, at: number, candidate: string, top: Top): boolean {
  // The space keeps a word candidate from gluing onto the token before it.
  const probe = `${text.slice(0, at)} ${candidate}`
  const result = strictParse(probe, top)
  if (candidate === probes.end) return result.failedAt === null
  return result.failedAt === null || result.failedAt >= probe.length
}

/** Every candidate (see `probes` for the class probes) the grammar accepts at `at`. */
export function acceptedAt(text: string, at: number, top: Top): Set<string> {
  const base = statementStart(text, at, top)
  const statement = text.slice(base)
  const accepted = new Set(candidates.filter((candidate) => accepts(statement, at - base, candidate, top)))
  for (const [representative, group] of Object.entries(implied)) {
    if (accepted.has(representative)) for (const word of group) accepted.add(word)
  }
  return accepted
}

/**
 * In a schema file, where the top-level statement holding `at` starts. Statements
 * there follow one another freely, so probing from that start is equivalent, and
 * costs the statement's size instead of the file's. Checked, not assumed: the text
 * before must parse on its own.
 */
function statementStart(text: string, at: number, top: Top): number {
  if (top !== 'Schema') return 0
  let start = 0
  for (let node = eelParser(top, false).parse(text.slice(0, at)).topNode.lastChild; node !== null; node = node.prevSibling) {
    if (!node.type.isError && node.name !== 'Comment') {
      start = node.from
      break
    }
  }
  return start > 0 && strictParse(text.slice(0, start), top).tree !== null ? start : 0
}
