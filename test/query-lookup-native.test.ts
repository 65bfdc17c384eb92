// A lookup by primary key as the first stage of a range read is done by the storage
// core in the same call as the read (Snapshot.rangeLookup; rowkey turns the row's field
// into the other collection's key, src/query/exec/lookup.ts says when). Its rows, failures
// and rows examined must be the streaming path's and a model's for every scalar kind of
// key: ints and floats that are equal numbers, -0, negative numbers, strings with NUL
// and multi-byte characters, timestamps before the epoch, booleans, nulls and absent
// fields. The shapes it cannot do natively (json or list fields, an expression, a
// string read as a timestamp, a lookup after another stage, a transaction that wrote
// either tree) must not take it, and must give the same rows.
import t from 'tap'
import type { Value } from '../src/lang/ast.js'
import { batch_pipeline_runs, native_lookup_batches, paced_batch_ends } from '../src/query/exec/batch-pipeline.js'
import { harness } from './helpers/query-runner.js'
import { rng } from './helpers/rng.js'

const schema = `
collection oi { id: int primary, name: string }
collection of { id: float primary, name: string }
collection os { id: string primary, name: string }
collection ot { id: timestamp primary, name: string }
collection ob { id: bool primary, name: string }
collection posts { id: int primary, i: int?, f: float?, s: string?, t: timestamp?, b: bool?, j: json?, l: [int]?, ts: string? }
`

const ints = [0, 1, 2, 3, -1, -7, 12, 255, 256, 65_537, -65_537, 2 ** 40, -(2 ** 40), 9_007_199_254_740_991]
const floats = [0.5, -0.5, 2.25, 3, -0, 1e-300, -1e300, 1.5e15]
const strings = ['', 'a', 'b', 'a\u0000b', 'a\u0000', '\u0000', 'é', '日本語', 'x'.repeat(20), 'ab', 'A']
const times = [0, 1, -1, 86_400_000, -86_400_000 * 365, 1_700_000_000_123, -8.64e15, 8.64e15].map((ms) => new Date(ms))

const seed = Number(process.env.TENANTDB_LOOKUP_SEED ?? 7)
const post_count = 2500

async function seeded(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, schema)
  const rnd = rng(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T
  // Each other collection holds about two thirds of the candidate keys.
  const keep = <T>(list: readonly T[]) => list.filter(() => rnd() < 0.67)
  const others = {
    oi: keep(ints), of: keep([...floats, ...ints.slice(0, 6)]), os: keep(strings), ot: keep(times), ob: [true],
  }
  for (const [name, keys] of Object.entries(others)) {
    // -0 and 0 are one key: keep one of them.
    const unique = keys.filter((key, i) => keys.findIndex((other) => sameKey(other, key)) === i)
    await h.q(`insert ${name} $rows`, { rows: unique.map((id, n) => ({ id, name: `${name}-${n}` })) })
  }
  // Each field is a candidate, null, or absent; `f` also holds ints, `i` is looked up in
  // the float collection too.
  const posts = Array.from({ length: post_count }, (_, id) => {
    const row: Record<string, Value> = { id }
    const maybe = (name: string, value: () => Value) => {
      const r = rnd()
      if (r < 0.1) row[name] = null
      else if (r < 0.2) return
      else row[name] = value()
    }
    maybe('i', () => pick(ints))
    maybe('f', () => (rnd() < 0.5 ? pick(floats) : pick(ints)))
    maybe('s', () => pick(strings))
    maybe('t', () => pick(times))
    maybe('b', () => rnd() < 0.5)
    maybe('j', () => pick(ints))
    maybe('l', () => [pick(ints)])
    maybe('ts', () => pick(times).toISOString())
    return row
  })
  for (let at = 0; at < posts.length; at += 1000) await h.q('insert posts $rows', { rows: posts.slice(at, at + 1000) })
  const stored = new Map<string, Map<number, string>>()
  for (const name of Object.keys(others)) stored.set(name, new Map())
  return { ...h, posts, others, ids: posts.map((p) => p.id as number) }
}

/** Equality of two keys as the key encoding has it: numbers by value (-0 is 0), dates by instant. */
function sameKey(a: Value, b: Value): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime()
  if (typeof a === 'number' && typeof b === 'number') return a === b
  return a === b
}

type Outcome = { rows?: unknown[][]; examined?: number; error?: string }

async function outcome(run: () => Promise<{ rows: unknown[][]; stats: { rows_examined: number } }>): Promise<Outcome> {
  try {
    const r = await run()
    return { rows: r.rows, examined: r.stats.rows_examined }
  } catch (err) {
    return { error: `${(err as { code?: string }).code}: ${(err as Error).message}` }
  }
}

// [stages, field, other collection]: each is checked against the model too.
const native: Array<[string, string, keyof Awaited<ReturnType<typeof seeded>>['others']]> = [
  ['lookup o: oi on i == id | select id, n: o.name', 'i', 'oi'],
  ['lookup o: of on f == id | select id, n: o.name', 'f', 'of'],
  ['lookup o: of on i == id | select id, n: o.name', 'i', 'of'],
  ['lookup o: oi on f == id | select id, n: o.name', 'f', 'oi'],
  ['lookup o: os on s == id | select id, n: o.name', 's', 'os'],
  ['lookup o: ot on t == id | select id, n: o.name', 't', 'ot'],
  ['lookup o: ob on b == id | select id, n: o.name', 'b', 'ob'],
]

// The other shapes of the stage, natively: inner, many, later stages, rows whose lookup
// column goes out whole, a take that stops the read inside a batch.
const forms = [
  'lookup inner o: os on s == id | select id, n: o.name',
  'lookup many o: os on s == id | select id, o',
  'lookup o: oi on i == id | where o != null and id % 3 == 0 | skip 5 | take 700 | select id, n: o.name',
  'lookup o: ot on t == id',
  'lookup inner o: oi on i == id | take 10',
  'lookup o: oi on i == id | where 100 / (id - 1500) > -1000 | select id',
  'lookup o: oi on i == id | take 1499 | where 100 / (id - 1500) > -1000 | select id',
  'lookup o: os on s == id | lookup p: oi on i == id | select id, o: o.name, p: p.name',
]

// Not natively: these must not take the native path, and give the same rows.
const not_native = [
  'lookup o: oi on j == id | select id, n: o.name',
  'lookup o: oi on i + 0 == id | select id, n: o.name',
  'lookup o: ot on ts == id | select id, n: o.name',
  'where i != 5 | lookup o: oi on i == id | select id, n: o.name',
  'select id, i | lookup o: oi on i == id | select id, n: o.name',
]

t.test(`the storage core's lookup gives the model's rows for every kind of key (seed ${seed}, TENANTDB_LOOKUP_SEED)`, async (t) => {
  const { q, posts, others, ids } = await seeded(t)
  for (const [stages, field, other] of native) {
    const before = native_lookup_batches.count
    const paced = paced_batch_ends.count
    const r = await q(`posts | ${stages}`)
    // A batch the statement's pace ended early (to yield to the event loop) is read on
    // from where it stopped: at most one more call each.
    const calls = native_lookup_batches.count - before
    t.ok(calls >= 3 && calls <= 3 + paced_batch_ends.count - paced, `${stages}: three batches of 1000, each read with its lookups in one call (${calls} calls, ${paced_batch_ends.count - paced} ended early)`)
    const names = new Map((await q(`${other} | select id, name`)).rows.map((row) => [row[0] as Value, row[1] as string]))
    const expected = posts.map((post) => {
      const value = post[field] ?? null
      let name: string | null = null
      if (value !== null) for (const [key, n] of names) if (sameKey(key, value)) name = n
      return [post.id, name]
    })
    t.same(r.rows, expected, `${stages}: each post's match, by the model`)
    const matched = expected.filter((row) => row[1] !== null).length
    t.ok(matched > 200 && matched < post_count - 200, `${stages}: ${matched} of ${post_count} posts match, so both sides are tested`)
    t.equal(r.stats.rows_examined, post_count + matched, `${stages}: every post and every match examined`)
    t.ok(others[other].length > 0)
  }
})

t.test('natively or not, every form gives the streaming path\'s rows, failures and rows examined', async (t) => {
  const { q, ids } = await seeded(t)
  for (const [stages] of native) t.same(await outcome(() => q(`posts | ${stages}`)), await outcome(() => q(`posts | where id in $ids | ${stages}`, { ids })), stages)
  for (const stages of forms) {
    const before = native_lookup_batches.count
    const runs = batch_pipeline_runs.count
    const batched = await outcome(() => q(`posts | ${stages}`))
    t.ok(native_lookup_batches.count > before, `${stages}: read natively`)
    t.equal(batch_pipeline_runs.count - runs, 1)
    t.same(batched, await outcome(() => q(`posts | where id in $ids | ${stages}`, { ids })), stages)
  }
  const failed = await outcome(() => q('posts | lookup o: oi on i == id | where 100 / (id - 1500) > -1000 | select id'))
  t.match(failed.error, /division by zero/, 'a failure reached natively is raised')
  const stopped = await outcome(() => q('posts | lookup o: oi on i == id | take 1499 | where 100 / (id - 1500) > -1000 | select id'))
  t.equal(stopped.rows?.length, 1499, 'a take before the failing row stops the native read first')
  for (const stages of not_native) {
    const before = native_lookup_batches.count
    const batched = await outcome(() => q(`posts | ${stages}`))
    t.equal(native_lookup_batches.count, before, `${stages}: not read natively`)
    t.same(batched, await outcome(() => q(`posts | where id in $ids | ${stages}`, { ids })), stages)
  }
})

t.test('a transaction that wrote either tree reads through its own writes, not natively', async (t) => {
  const { q } = await seeded(t)
  const read = 'posts | lookup o: oi on i == id | select id, n: o.name'
  const committed = (await q(read)).rows
  // Each block commits: post 0 first names a key no row has, then that row is added.
  const steps: Array<[string, unknown[][]]> = [
    ['posts | get 0 | update {i: 123456}', [[0, null], ...committed.slice(1)]],
    ['insert oi {id: 123456, name: "new"}', [[0, 'new'], ...committed.slice(1)]],
  ]
  for (const [write, expected] of steps) {
    const before = native_lookup_batches.count
    const r = await q(`atomic { ${write}; ${read} }`)
    t.equal(native_lookup_batches.count, before, `after ${write}: not natively`)
    t.same(r.results?.[1]?.rows, expected, `after ${write}: what it wrote is read, the rest as committed`)
  }
  // Reads only in a block: natively.
  const before = native_lookup_batches.count
  const r = await q(`atomic { ${read}; oi | count }`)
  t.ok(native_lookup_batches.count > before, 'a block that wrote nothing reads natively')
  t.same(r.results?.[0]?.rows, steps[1]?.[1])
})

t.test('batches larger than the shared lookup buffer, and queries reading natively side by side', async (t) => {
  const { q } = await harness(t, `
    collection users { id: int primary, name: string }
    collection posts { id: int primary, author: int, body: string }
  `)
  await q('insert users $rows', { rows: Array.from({ length: 300 }, (_, id) => ({ id, name: `user ${id}`.padEnd(id % 7 === 0 ? 3000 : 10, '.') })) })
  // 2500 posts: bodies of 600 bytes make a batch of 1000 bigger than the 256 KiB buffer
  // (lookup_buffer_bytes), and every 97th body of 40 KiB and every 7th user's name of
  // 3000 bytes make them bigger still: each batch is read again into a larger buffer.
  const posts = Array.from({ length: 2500 }, (_, id) => ({ id, author: (id * 31) % 350, body: String(id).padEnd(id % 97 === 0 ? 40_000 : 600, 'x') }))
  for (let at = 0; at < posts.length; at += 500) await q('insert posts $rows', { rows: posts.slice(at, at + 500) })
  const text = 'posts | lookup u: users on author == id | select id, b: body, n: u.name'
  const expected = posts.map((p) => [p.id, p.body, p.author < 300 ? `user ${p.author}`.padEnd(p.author % 7 === 0 ? 3000 : 10, '.') : null])
  const before = native_lookup_batches.count
  const paced = paced_batch_ends.count
  t.same((await q(text)).rows, expected, 'every batch read whole, through a larger buffer')
  const calls = native_lookup_batches.count - before
  t.ok(calls >= 3 && calls <= 3 + paced_batch_ends.count - paced, `three batches (${calls} calls, ${paced_batch_ends.count - paced} ended early)`)
  // Readers that interleave between batches each get their own rows: a batch's bytes
  // are the next batch's buffer, so each is decoded before any other read.
  const together = await Promise.all([q(text), q('posts | lookup u: users on author == id | where id % 2 == 1 | select id, n: u.name'), q(text)])
  t.same(together[0]?.rows, expected)
  t.same(together[1]?.rows, expected.filter((row) => (row[0] as number) % 2 === 1).map((row) => [row[0], row[2]]))
  t.same(together[2]?.rows, expected)
})
