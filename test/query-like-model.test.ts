// `like`'s own matcher (src/query/values/like.ts: segments between `%`, each found at its
// leftmost place by a bit-parallel search) against the textbook model of SQL's LIKE, a
// dynamic program over (pattern, text) positions, on random patterns and texts: `%`,
// `_`, escapes, segments longer than a machine word, astral characters.
import t from 'tap'
import { LikePattern } from '../src/query/values/like.js'
import { soak } from './helpers/soak.js'

type Unit = { kind: 'any' } | { kind: 'many' } | { kind: 'char'; ch: string }

function units(pattern: string): Unit[] {
  const chars = [...pattern]
  const out: Unit[] = []
  for (let i = 0; i < chars.length; i += 1) {
    const ch = chars[i] as string
    if (ch === '%') out.push({ kind: 'many' })
    else if (ch === '_') out.push({ kind: 'any' })
    else if (ch === '\\') out.push({ kind: 'char', ch: chars[++i] as string })
    else out.push({ kind: 'char', ch })
  }
  return out
}

/** Whether the whole of `text` matches: match[i][j] = units[i..] match chars[j..]. */
function model(pattern: string, text: string): boolean {
  const p = units(pattern)
  const s = [...text]
  let next = new Array<boolean>(s.length + 1).fill(false)
  next[s.length] = true
  for (let i = p.length - 1; i >= 0; i -= 1) {
    const unit = p[i] as Unit
    const here = new Array<boolean>(s.length + 1).fill(false)
    for (let j = s.length; j >= 0; j -= 1) {
      if (unit.kind === 'many') here[j] = (next[j] as boolean) || (j < s.length && (here[j + 1] as boolean))
      else here[j] = j < s.length && (unit.kind === 'any' || unit.ch === s[j]) && (next[j + 1] as boolean)
    }
    next = here
  }
  return next[0] as boolean
}

/** A small seeded generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const alphabet = ['a', 'b', 'a', 'b', 'c', '😀']
const cases_min = soak ? 200_000 : 20_000

t.test(`like agrees with the model on ${cases_min} random patterns and texts`, async (t) => {
  const next = random(31)
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T
  let matched = 0
  let cases = 0
  for (; cases < cases_min; cases += 1) {
    // Some segments longer than 32 units, to cross the search's word boundary.
    const patternLength = next() < 0.1 ? 30 + Math.floor(next() * 50) : Math.floor(next() * 10)
    let pattern = ''
    for (let i = 0; i < patternLength; i += 1) {
      const r = next()
      pattern += r < 0.2 ? '%' : r < 0.3 ? '_' : r < 0.35 ? `\\${pick(['%', '_', '\\', 'a'])}` : pick(alphabet)
    }
    let text = ''
    if (next() < 0.5) {
      // Made from the pattern, so about half match; a random change may undo that.
      for (const unit of units(pattern)) {
        if (unit.kind === 'many') for (let n = Math.floor(next() * 4); n > 0; n -= 1) text += pick(alphabet)
        else text += unit.kind === 'any' ? pick(alphabet) : unit.ch
      }
      if (next() < 0.3) text = text.slice(0, Math.floor(next() * text.length)) + pick(alphabet) + text.slice(Math.floor(next() * text.length))
    } else {
      const textLength = Math.floor(next() * (patternLength + 12))
      for (let i = 0; i < textLength; i += 1) text += pick([...alphabet, '%', '_', '\\'])
    }
    const want = model(pattern, text)
    const got = new LikePattern(pattern).matches(text)
    if (got !== want) {
      t.fail(`case ${cases}: like(${JSON.stringify(text)}, ${JSON.stringify(pattern)}) is ${got}, the model says ${want}`)
      return
    }
    if (want) matched += 1
  }
  t.equal(cases, cases_min)
  t.ok(matched > cases_min / 4 && matched < (cases_min * 3) / 4, `${matched} of them match: both answers are exercised`)
})

t.test('a pattern ending in an escape is refused', async (t) => {
  t.throws(() => new LikePattern('ab\\'), { code: 'type_error', message: /ends with an escape character/ })
})
