// Fuzz: random and mutated query texts through the whole path (parse, check, plan,
// execute) against real data. Every outcome is a result or a clean EelError or
// QueryError: never another exception, never a hang.
import t from 'tap'
import { EelError } from '../src/lang/diagnostic.js'
import { QueryError } from '../src/query/index.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection users { id: int primary, email: string unique, age: int?, score: float?, tags: [string] = [], meta: json?, index (age) }
query older($min: int = 0) { users | where age > $min }
`
const seeds = [
  'users | where age >= $min and email != "x" | sort age desc | skip 1 | take 3',
  'users | select id, e: upper(email), n: len(tags) + 1',
  'users | aggregate n: count(), s: sum(score), lo: min(age) by age',
  'users | distinct age | take 2',
  'users | get 2',
  'call older(min: 3) | count',
  'users | where age in [1, 2, null] or not (score < 1.5) | select meta.a.b',
  'users | where id == $min | update {age: age + 1, score: coalesce(score, 0) * 2}',
  'insert users {id: 100, email: "new", age: 5, tags: ["a"], meta: {x: [1, 2]}}',
  'atomic { users | where age > 3 | delete; insert users [{id: 200, email: "q"}] }',
  'explain users | where age == 3',
]
const alphabet = ' |$(){}[]:,.=<>!+-*/%"#`\n0123456789abcdefghijklmnopqrstuvwxyz_'

function rng(seed: number) {
  let state = seed >>> 0 || 1
  return (n: number) => {
    state ^= state << 13; state >>>= 0
    state ^= state >>> 17
    state ^= state << 5; state >>>= 0
    return state % n
  }
}

function mutate(text: string, next: (n: number) => number): string {
  let out = text
  for (let i = 0, n = next(3) === 0 ? 1 + next(4) : 1; i < n; i += 1) {
    const at = next(out.length + 1)
    switch (next(4)) {
      case 0: out = out.slice(0, at) + alphabet[next(alphabet.length)] + out.slice(at); break
      case 1: out = out.slice(0, at) + out.slice(at + 1 + next(3)); break
      case 2: out = out.slice(0, at) + alphabet[next(alphabet.length)] + out.slice(at + 1); break
      default: out = out.slice(0, at)
    }
  }
  return out
}

t.test('fuzz: mutated queries end in a result or a clean error', async (t) => {
  const { q } = await harness(t, schema)
  await q('insert users $rows', { rows: Array.from({ length: 30 }, (_, i) => ({ id: i, email: `u${i}`, age: i % 7 === 0 ? null : i % 9, score: i / 3 })) })
  const next = rng(Number(process.env.TENANTDB_FUZZ_SEED ?? 7))
  const cases = Number(process.env.TENANTDB_FUZZ_CASES ?? 3000)
  const outcomes = { ok: 0, eel: 0, query: 0 }
  const started = Date.now()
  for (let i = 0; i < cases; i += 1) {
    const base = seeds[next(seeds.length)] as string
    const roll = next(10)
    // Random noise, a valid query (run against fresh mutations of the data), or a mutant.
    const text = roll === 0 ? Array.from({ length: next(40) }, () => alphabet[next(alphabet.length)]).join('') : roll < 3 ? base : mutate(base, next)
    try {
      await q(text, { min: next(3) === 0 ? 'x' : next(5) })
      outcomes.ok += 1
    } catch (err) {
      if (err instanceof EelError) {
        outcomes.eel += 1
        const d = err.diagnostic
        if (!(d.line >= 1 && d.column >= 1 && d.from <= text.length)) t.fail(`bad position for ${JSON.stringify(text)}: ${err.message}`)
      } else if (err instanceof QueryError) {
        outcomes.query += 1
      } else {
        t.fail(`${JSON.stringify(text)} threw ${(err as Error).stack}`)
        break
      }
    }
  }
  t.comment(`fuzz outcomes over ${cases} cases in ${Date.now() - started} ms: ${JSON.stringify(outcomes)}`)
  t.ok(outcomes.ok > cases / 20 && outcomes.eel > cases / 4, 'both valid and invalid texts were exercised')
})
