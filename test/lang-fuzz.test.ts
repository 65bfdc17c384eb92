// Fuzzes parse() with random token soup and with mutations of every valid input in
// test/grammar: it must only ever throw EelError, finish, and give diagnostics whose
// positions lie inside the text. Inputs that once broke it are replayed from
// test/grammar/fuzz-corpus.txt (one JSON string per line) before the random ones.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileTests } from '@lezer/generator/test'
import t from 'tap'
import { EelError, type Diagnostic } from '../src/lang/diagnostic.js'
import { diagnose, parse, parseExpression, syntaxDiagnostics, type ParseMode } from '../src/lang/index.js'
import { rng } from './helpers/rng.js'
import { soak } from './helpers/soak.js'

const seed = 0xee1
// 400 and 800 in `npm test`, ten times that under TENANTDB_SOAK=1 (test/helpers/soak.ts).
const randomCases = soak ? 10_000 : 400
const mutationCases = soak ? 20_000 : 800
/**
 * A hang guard, not a speed check: a parse takes well under a millisecond, so one
 * that takes seconds has run away (a loaded machine slows a parse by a factor, not a
 * thousandfold). Speed is measured by the benchmarks, never asserted here.
 */
const parse_hang_guard_ms = 10_000

const random = rng(seed)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
const modes: readonly ParseMode[] = ['query', 'schema', 'statement']

const pieces = [
  'users', 'a', 'b.c', '`count`', '`', '$p', '$', '1', '2.5', '1e3', '-', '"s"', '"', "'x'", '\\', '"\\u{41}"', '"\\q"',
  'where', 'select', 'sort', 'asc', 'desc', 'skip', 'take', 'count', 'aggregate', 'by', 'distinct', 'get', 'update',
  'delete', 'call', 'insert', 'upsert', 'explain', 'atomic', 'collection', 'was', 'primary', 'unique', 'narrowed',
  'index', 'dropped', 'query', 'tenant', 'create', 'fork', 'snapshot', 'as', 'and', 'or', 'not', 'in', 'true', 'null',
  'int', 'string', '|', '||', '(', ')', '[', ']', '{', '}', ',', ':', ';', '.', '?', '=', '==', '!=', '<', '<=', '>',
  '>=', '+', '*', '/', '%', '@', '&&', '!', '<>', '#', '# c\n', ' ', ' ', '\n', '\t', 'é', '😀', '\u0000', '~',
]

function soup(): string {
  const n = 1 + Math.floor(random() * 24)
  let text = ''
  for (let i = 0; i < n; i += 1) text += pick(pieces) + (random() < 0.6 ? ' ' : '')
  return text
}

const chars = [...'|(){}[],:;.=!<>+-*/%@#$`"\'\\ \nazAZ09_é😀']

function mutate(text: string): string {
  const at = Math.floor(random() * (text.length + 1))
  switch (Math.floor(random() * 5)) {
    case 0: return text.slice(0, at) + pick(chars) + text.slice(at)
    case 1: return text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 3))
    case 2: return text.slice(0, at) + pick(chars) + text.slice(at + 1)
    case 3: return text.slice(0, at)
    default: return text.slice(0, at) + pick(pieces) + ' ' + text.slice(at)
  }
}

/** Every input of the grammar test files: valid text to mutate. */
function validInputs(): string[] {
  const dir = 'test/grammar'
  return readdirSync(dir)
    .filter((name) => name.endsWith('.txt') && name !== 'fuzz-corpus.txt')
    .flatMap((name) => fileTests(readFileSync(join(dir, name), 'utf8'), name).map((test) => test.text))
}

const corpus = readFileSync('test/grammar/fuzz-corpus.txt', 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as string)

/** What is wrong with how `run` treated `text`, or undefined; `valid` says whether it threw. */
function problem(text: string, run: () => unknown): { valid: boolean; problem?: string } {
  const started = performance.now()
  let diagnostics: Diagnostic[] = []
  try {
    run()
  } catch (err) {
    if (!(err instanceof EelError)) return { valid: false, problem: `threw ${String(err)}` }
    diagnostics = err.diagnostics
  }
  const valid = diagnostics.length === 0
  const elapsed = performance.now() - started
  if (elapsed > parse_hang_guard_ms) return { valid, problem: `ran away: took ${Math.round(elapsed)} ms (hang guard ${parse_hang_guard_ms} ms)` }
  const lines = text.split('\n')
  for (const d of diagnostics) {
    const line = lines[d.line - 1]
    if (line === undefined || d.line < 1) return { valid, problem: `line ${d.line} is outside the text` }
    if (d.column < 1 || d.column > line.length + 1) return { valid, problem: `column ${d.column} is outside line ${d.line}` }
    if (d.from < 0 || d.from > d.to || d.to > text.length) return { valid, problem: `span ${d.from}-${d.to} is outside the text` }
    if (d.message === '' || d.message.includes('undefined')) return { valid, problem: `bad message ${JSON.stringify(d.message)}` }
  }
  return { valid }
}

/** What is wrong with how the parser treats `text`, or undefined. */
function check(text: string): string | undefined {
  const mode = pick(modes)
  const asStatement = problem(text, () => parse(text, mode))
  const found = asStatement.problem ?? problem(text, () => parseExpression(text)).problem
  if (found !== undefined) return `${JSON.stringify(text)} (${mode}): ${found}`
  // The lint entry points agree with parse about whether the text is valid.
  const linted = diagnose(text, mode).length === 0
  const syntaxOk = syntaxDiagnostics(text, mode).length === 0
  if (linted !== asStatement.valid || (!syntaxOk && asStatement.valid)) {
    return `${JSON.stringify(text)} (${mode}): diagnose, syntaxDiagnostics and parse disagree`
  }
  return undefined
}

function failures(texts: Iterable<string>): string[] {
  const out: string[] = []
  for (const text of texts) {
    const found = check(text)
    if (found !== undefined) out.push(found)
  }
  return out
}

function* times<T>(n: number, make: () => T): Generator<T> {
  for (let i = 0; i < n; i += 1) yield make()
}

t.test('the replayed corpus', async (t) => {
  t.ok(corpus.length > 0)
  t.same(failures(corpus), [])
})

t.test('random token soup', async (t) => {
  t.same(failures(times(randomCases, soup)), [])
})

t.test('mutated valid inputs', async (t) => {
  const valid = validInputs()
  t.ok(valid.length > 30)
  const mutated = (): string => {
    let text = pick(valid)
    const rounds = 1 + Math.floor(random() * 3)
    for (let r = 0; r < rounds; r += 1) text = mutate(text)
    return text
  }
  t.same(failures(times(mutationCases, mutated)), [])
})
