// Turns the raw set of accepted probes (parse-probe.ts) into what a person reads
// after "expected": classes ("an expression", "a stage") instead of token dumps.
import { probes } from './parse-probe.js'
import { keywords, stageKeywords } from './parse-scan.js'

const expressionStarts = [probes.expression, probes.name, probes.param, '(', '[', '{', '-', 'not', 'true', 'false', 'null']
const statementStarts = [probes.name, 'call', 'insert', 'upsert', 'explain', 'atomic', 'collection', 'dropped', 'query', 'tenant']
const binaryOperators = ['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'and', 'or', 'in']

/** Tokens (unquoted) and classes ("an expression"), most specific first. */
export function describeExpected(accepted: ReadonlySet<string>): string[] {
  const left = new Set(accepted)
  const classes: string[] = []
  const claim = (label: string, covered: readonly string[]): void => {
    classes.push(label)
    for (const token of covered) left.delete(token)
  }
  if (accepted.has('insert')) {
    claim(accepted.has('collection') ? 'a statement' : 'a pipeline or a write', statementStarts)
  }
  if (accepted.has(probes.expression)) claim('an expression', expressionStarts)
  else if (accepted.has(probes.type)) claim('a type', [probes.name, '['])
  else if (accepted.has(probes.param)) claim('a parameter', [probes.param])
  else if (left.has(probes.name)) claim('a name', [probes.name])
  left.delete(probes.type)
  if ([...stageKeywords].filter((k) => accepted.has(k)).length >= 5) claim('a stage', [...stageKeywords])
  if (accepted.has('==') && accepted.has('+')) claim('an operator', [...binaryOperators, '.', '('])
  const hasEnd = left.delete(probes.end)
  // A trailing `;` is optional wherever the text may end: not worth mentioning.
  if (hasEnd) left.delete(';')
  const words = [...left].filter((t) => keywords.has(t))
  const symbols = [...left].filter((t) => !keywords.has(t))
  return [...words, ...symbols, ...classes, ...(hasEnd ? ['end of input'] : [])]
}

/** "'asc', ',' or end of input": literal tokens quoted, classes as they are. */
export function formatExpected(expected: readonly string[]): string {
  const shown = expected.map((e) => (isClass(e) ? e : `'${e}'`))
  if (shown.length <= 1) return shown.join('')
  return `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1] ?? ''}`
}

function isClass(expected: string): boolean {
  return /^(a|an|end) /.test(expected)
}
