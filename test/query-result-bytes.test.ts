// The answer's size bound (result_bytes_max, docs/api.md "Size of an answer") on the
// real engine: rows are measured as the JSON text the HTTP route writes, to the byte
// (escapes and UTF-8 included), an answer of exactly the bound is allowed and one byte
// more is `result_too_large`, an atomic block's last rows count twice (the answer holds
// them twice), and a prepared statement's `all` has the same bound.
import t from 'tap'
import type { Value } from '../src/lang/ast.js'
import { result_bytes_max } from '../src/limits.js'
import { jsonBytes, jsonBytesBound } from '../src/query/exec/json-bytes.js'
import { openDatabase } from './helpers/database.js'
import { harness } from './helpers/query-runner.js'
import { rng } from './helpers/rng.js'

const utf8 = (value: unknown) => Buffer.byteLength(JSON.stringify(value))
/** What the bound counts for these rows: each row's JSON text and its comma. */
const answerBytes = (rows: readonly unknown[]) => rows.reduce<number>((sum, row) => sum + utf8(row) + 1, 0)

t.test('jsonBytes is JSON.stringify\'s UTF-8 length; jsonBytesBound is never below it', async (t) => {
  const random = rng(31)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const chars = ['a', 'Z', ' ', '"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', 'é', '€', '\ud83d\ude00', '\ud800', '\udc00', '\u2028']
  const value = (depth: number): Value => {
    switch (Math.floor(random() * (depth > 3 ? 5 : 8))) {
      case 0: return null
      case 1: return random() < 0.5
      case 2: return pick([0, -0, 7, -12, 1e15, 123456789012, 1.5, -2.25e-7, 1e21, Number.MAX_VALUE, Number.MIN_VALUE, NaN, -Infinity])
      case 3: return Array.from({ length: Math.floor(random() * 12) }, () => pick(chars)).join('')
      case 4: return pick([new Date(0), new Date(Date.UTC(2026, 10, 28, 12)), new Date(-62198755200000), new Date(8.64e15), new Date(NaN)])
      case 5: case 6: return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1))
      default: return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`${pick(chars)}${i}`, value(depth + 1)]))
    }
  }
  for (let i = 0; i < 3000; i += 1) {
    const v = value(0)
    const exact = utf8(v)
    if (jsonBytes(v) !== exact) t.fail(`jsonBytes(${JSON.stringify(v)}) is ${jsonBytes(v)}, JSON has ${exact} bytes`)
    if (jsonBytesBound(v) < exact) t.fail(`jsonBytesBound(${JSON.stringify(v)}) is ${jsonBytesBound(v)}, below ${exact}`)
  }
  const holed = { a: 1, b: undefined as unknown as Value }
  t.equal(jsonBytes(holed), utf8({ a: 1 }), 'a field left undefined is left out, as JSON.stringify does')
  t.ok(jsonBytesBound(holed) >= utf8({ a: 1 }))
  // A lookup many's shape: one long list in every row; whole, 1e9 strings to walk.
  const found = Array.from({ length: 1e5 }, () => 'xx')
  const rows = Array.from({ length: 1e4 }, () => [1, found])
  const started = Date.now()
  t.ok(jsonBytes(rows, 1e6) > 1e6 && jsonBytesBound(rows, 1e6) > 1e6, 'both measures pass their room')
  t.ok(Date.now() - started < 1000, 'and stop soon after it')
})

const schema = 'collection c { id: int primary, s: string, b: bool?, at: timestamp?, tags: [string] = [] }'

t.test('an answer of exactly result_bytes_max is allowed; one byte more is result_too_large', async (t) => {
  const h = await harness(t, schema)
  const texts = ['plain', 'é€😀 and "quotes" \\ and\nnewlines', '\u0001 control', 'x'.repeat(500)]
  await h.q('insert c $rows', {
    rows: Array.from({ length: 1200 }, (_, i) => ({
      id: i, s: `${texts[i % texts.length] as string}${i}`, b: i % 3 === 0 ? null : i % 3 === 1,
      at: i % 5 === 0 ? '2026-11-28T12:00:00.000Z' : null, tags: Array.from({ length: i % 20 }, (_, j) => `t${j}`),
    })),
  })
  const whole = await h.q('c')
  const exact = answerBytes(whole.rows)
  const at = await h.runner.run('default', 'c', {}, { result_bytes_max: exact })
  t.same(at.rows, whole.rows, 'all 1200 rows at the bound')
  const over = await h.runner.run('default', 'c', {}, { result_bytes_max: exact - 1 }).catch((e: unknown) => e)
  t.match(over, { code: 'result_too_large', message: new RegExp(`more than ${exact - 1} bytes of JSON \\(result_bytes_max\\)`) })
  // Each path that makes rows counts them: points, a sort's stream, a write's returning.
  const points = 'c | where id in [1, 2, 3]'
  const three = answerBytes((await h.q(points)).rows)
  t.equal((await h.runner.run('default', points, {}, { result_bytes_max: three })).rows.length, 3)
  t.match(await h.runner.run('default', points, {}, { result_bytes_max: three - 1 }).catch((e: unknown) => e), { code: 'result_too_large' })
  const sorted = 'c | sort s | take 50'
  const fifty = answerBytes((await h.q(sorted)).rows)
  t.equal((await h.runner.run('default', sorted, {}, { result_bytes_max: fifty })).rows.length, 50)
  t.match(await h.runner.run('default', sorted, {}, { result_bytes_max: fifty - 1 }).catch((e: unknown) => e), { code: 'result_too_large' })
  const returning = 'c | where id < 10 | update {s: s} returning id, s'
  const ten = answerBytes((await h.q('c | where id < 10 | select id, s')).rows)
  t.equal((await h.runner.run('default', returning, {}, { result_bytes_max: ten })).rows.length, 10)
  t.match(await h.runner.run('default', returning, {}, { result_bytes_max: ten - 1 }).catch((e: unknown) => e), { code: 'result_too_large' })
})

t.test('an atomic block counts its last statement\'s rows twice, as its answer holds them', async (t) => {
  const h = await harness(t, schema)
  await h.q('insert c $rows', { rows: Array.from({ length: 20 }, (_, i) => ({ id: i, s: `row ${i}` })) })
  const block = 'atomic { c | where id < 5; c }'
  const r = await h.q(block)
  const bytes = answerBytes((r.results ?? []).flatMap((s) => s.rows)) + answerBytes(r.rows)
  t.equal(bytes, answerBytes((await h.q('c | where id < 5')).rows) + 2 * answerBytes(r.rows))
  t.same((await h.runner.run('default', block, {}, { result_bytes_max: bytes })).rows, r.rows)
  t.match(await h.runner.run('default', block, {}, { result_bytes_max: bytes - 1 }).catch((e: unknown) => e), { code: 'result_too_large' })
})

t.test('the list a hash lookup gives every row is measured once, and counted for each row', async (t) => {
  const h = await harness(t, 'collection h { id: int primary, g: int, s: string }')
  await h.q('insert h $rows', { rows: Array.from({ length: 300 }, (_, i) => ({ id: i, g: i % 2, s: i % 3 === 0 ? 'é"\n' : 'plain' })) })
  const text = 'h | lookup many x: h on g == g | select id, x'
  const r = await h.q(text)
  t.equal(r.plan?.lookups?.[0]?.access, 'hash')
  const exact = answerBytes(r.rows)
  t.same((await h.runner.run('default', text, {}, { result_bytes_max: exact })).rows, r.rows)
  t.match(await h.runner.run('default', text, {}, { result_bytes_max: exact - 1 }).catch((e: unknown) => e), { code: 'result_too_large' })
  t.match(await h.runner.run('default', text, {}, { result_bytes_max: 1000 }).catch((e: unknown) => e), { code: 'result_too_large' }, 'one list over the bound')
})

t.test('a prepared statement\'s all() is bound by result_bytes_max; iterate() streams past it', async (t) => {
  const { db } = await openDatabase(t, schema)
  const tenant = db.tenant('default')
  const big = 'x'.repeat(1_000_000)
  const count = Math.ceil(result_bytes_max / big.length) + 1
  for (let i = 0; i < count; i += 1) await tenant.query('insert c {id: $id, s: $s}', { id: i, s: big })
  const all = await tenant.prepare('c')
  t.throws(() => all.all(), { code: 'result_too_large' }, `${count} rows of a million characters are more than result_bytes_max`)
  t.equal((await tenant.prepare('c | take 3')).all().length, 3, 'three of them fit')
  let streamed = 0
  for (const row of all.iterate()) streamed += row.s === big ? 1 : 0
  t.equal(streamed, count, 'iterate hands them over one at a time, unbounded')
  t.match(await tenant.query('c').catch((e: unknown) => e), { code: 'result_too_large' }, 'tenant.query has the same bound')
})
