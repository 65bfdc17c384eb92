// The memory one statement may hold (statement_memory_bytes_max, docs/language.md
// "Limits of a statement"): over real HTTP, a sort, an aggregate and a
// distinct over more rows than the bound are refused with 400
// `statement_memory_exceeded` naming it, while a sort with a take over the same rows is
// answered. On the engine with a lowered bound: a sort keeps only the rows the answer
// can hold, a lookup many holds its matches one batch at a time (and a take before it
// limits that batch), and a hash lookup's table counts too.
import t from 'tap'
import { statement_memory_bytes_max } from '../src/limits.js'
import { heapBytes } from '../src/query/exec/heap-bytes.js'
import { openDatabase } from './helpers/database.js'
import { startServer } from './helpers/http-server.js'
import { harness } from './helpers/query-runner.js'

const token = 'statement-memory-token-0123456'
const auth = { authorization: `Bearer ${token}` }

t.test('a sort, an aggregate and a distinct holding more than the bound are refused over HTTP', async (t) => {
  const { db } = await openDatabase(t, 'collection c { id: int primary, s: string }')
  // Rows of a million characters each, more of them than the bound holds; answers of ids only.
  const big = 'x'.repeat(999_990)
  const count = Math.ceil(statement_memory_bytes_max / big.length) + 4
  for (let i = 0; i < count; i += 1) await db.tenant('default').query('insert c {id: $id, s: $s}', { id: i, s: `${String(i).padStart(10, '0')}${big}` })
  const { origin } = await startServer(t, { token, db })
  const query = async (body: string) => {
    const res = await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: auth, body })
    return { status: res.status, body: await res.json() as Record<string, unknown> }
  }
  const refused: Array<[string, string]> = [
    ['c | sort s | select id', 'sort'], ['c | aggregate n: count() by s | select n', 'aggregate'],
    ['c | distinct s | count', 'distinct'], ['c | aggregate n: count_distinct(s)', 'aggregate'],
  ]
  for (const [text, holder] of refused) {
    const r = await query(text)
    t.equal(r.status, 400, text)
    t.match(r.body, {
      code: 'statement_memory_exceeded', conflict: false,
      error: `the statement would hold more than ${statement_memory_bytes_max} bytes of rows in memory (statement_memory_bytes_max) in its ${holder}`,
    }, text)
  }
  const top = await query('c | sort s desc | take 2 | select id')
  t.equal(top.status, 200, 'a sort with a take keeps only what it may return')
  t.same(top.body.rows, [[count - 1], [count - 2]])
})

const schema = `
collection kv { k: int primary, v: string }
collection m { id: int primary, g: int, index (g) }
collection h { id: int primary, g: int }
`

t.test('a sort that only selects after it keeps the rows the answer holds and one more', async (t) => {
  const h = await harness(t, schema)
  await h.q('insert kv $rows', { rows: Array.from({ length: 100 }, (_, i) => ({ k: i, v: `value ${String(99 - i).padStart(3, '0')}` })) })
  // About 200 bytes a row held: 11 rows fit, 100 do not.
  const limits = { rows_max: 10, statement_memory_bytes_max: 5000 }
  const r = await h.runner.run('default', 'kv | sort v | skip 0 | select k', {}, limits)
  t.same(r.rows, Array.from({ length: 10 }, (_, i) => [99 - i]), 'the first ten, sorted')
  t.equal(r.truncated, true)
  const err = await h.runner.run('default', 'kv | sort v | where k >= 0 | select k', {}, limits).catch((e: unknown) => e)
  t.match(err, { code: 'statement_memory_exceeded', message: /more than 5000 bytes of rows in memory \(statement_memory_bytes_max\) in its sort; / }, 'a where after it needs every row')
})

t.test('a lookup many holds the rows it found for one batch at a time', async (t) => {
  const h = await harness(t, schema)
  // Three matches each, through index (g): 1000 rows' matches are about 400 KB held.
  await h.q('insert m $rows', { rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, g: i % 1000 })) })
  const limit = { statement_memory_bytes_max: 600_000 }
  const r = await h.runner.run('default', 'm | lookup many x: m on g == g | select id, n: len(x)', {}, limit)
  t.equal(r.rows.length, 3000, 'three batches, each let go before the next')
  t.ok(r.rows.every((row) => row[1] === 3))
  const err = await h.runner.run('default', 'm | lookup many x: m on g == g | select id', {}, { statement_memory_bytes_max: 100_000 }).catch((e: unknown) => e)
  t.match(err, { code: 'statement_memory_exceeded', message: /in its lookup on 'm\.g'; narrow the rows before the lookup, or take fewer/ })
  // A take after the lookup reads (and looks up) only the rows it takes, not a batch of 1000.
  await h.q('insert m $rows', { rows: Array.from({ length: 300 }, (_, i) => ({ id: 10_000 + i, g: 5000 })) })
  const two = await h.runner.run('default', 'm | where id >= 10000 | lookup many x: m on g == g | take 2 | select id, n: len(x)', {}, { statement_memory_bytes_max: 200_000 })
  t.same(two.rows, [[10_000, 300], [10_001, 300]])
})

t.test('a hash lookup\'s table counts against the statement\'s memory, naming the index that avoids it', async (t) => {
  const h = await harness(t, schema)
  await h.q('insert h $rows', { rows: Array.from({ length: 1000 }, (_, i) => ({ id: i, g: i % 10 })) })
  const text = 'h | take 1 | lookup many x: h on g == g | select n: len(x)'
  t.same((await h.q(text)).rows, [[100]])
  const err = await h.runner.run('default', text, {}, { statement_memory_bytes_max: 50_000 }).catch((e: unknown) => e)
  t.match(err, { code: 'statement_memory_exceeded', message: /in its hash lookup on 'h\.g'; declare index \(g\) in 'h' so each row is looked up by it/ })
})

t.test('a held row\'s heap estimate weighs every kind of value, and stops past its room', async (t) => {
  const row = { id: 1, name: 'Ada', ok: true, none: null, at: new Date(0), tags: ['a', 'bc'], nested: { n: 2.5 } }
  const parts = [8, 16 + 3, 8, 8, 32, 16 + 2 * 8 + (16 + 1) + (16 + 2), 16 + 16 + 8]
  t.equal(heapBytes(row), 16 + parts.reduce((a, b) => a + b + 16, 0), 'a header, and each field\'s two slots and value')
  const found = Array.from({ length: 1e5 }, () => ({ id: 1 }))
  const started = Date.now()
  t.ok(heapBytes(Array.from({ length: 1e4 }, () => ({ x: found })), 1e6) > 1e6)
  t.ok(Date.now() - started < 1000, 'without walking a billion rows')
})
