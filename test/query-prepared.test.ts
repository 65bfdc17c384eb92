// Prepared statements (docs/api.md, "Prepared statements"): `get`, `all` and
// `iterate` answer what `tenant.query` answers for the same text and parameters, on
// the calling stack; `iterate` streams past query_rows_max and holds one snapshot for
// its whole life; checked forms, and their plans, are reused only for parameters of
// the same shape;
// writes, and pipelines the synchronous paths do not serve, are refused with a clear
// error and change nothing.
import t from 'tap'
import type { Value } from '../src/lang/ast.js'
import { query_rows_max } from '../src/limits.js'
import { plan_templates_made } from '../src/query/plan/plan.js'
import { openDatabase } from './helpers/database.js'

const key = (i: number) => `k${String(i).padStart(6, '0')}`
const schema = 'collection kv { k: string primary, n: int, v: string? }'

type Row = Record<string, Value>

/** The rows of a query result as objects, as `get`, `all` and `iterate` give them. */
function objects(result: { columns: string[]; rows: Value[][] }): Row[] {
  return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i] ?? null])))
}

t.test('get, all and iterate answer what tenant.query answers, synchronously', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  const rows = Array.from({ length: 2500 }, (_, i) => ({ k: key(i), n: i % 7, v: i % 5 === 0 ? null : `v${i}` }))
  await kv.query('insert kv $rows', { rows: [...rows].reverse() })
  const cases: Array<[text: string, params: Record<string, Value>]> = [
    ['kv | get $k', { k: key(17) }],
    ['kv | get $k', { k: 'absent' }],
    ['kv | where k == $k | select k, n', { k: key(99) }],
    ['kv | where k in $ks', { ks: [key(3), 'nope', key(1999)] }],
    ['kv | where k >= $k | take 1000', { k: key(950) }],
    ['kv | where k >= $k and n == 3 | skip 2 | take 40 | select k, twice: n * 2', { k: key(10) }],
    ['kv | where v == null', {}],
    ['kv | take 0', {}],
  ]
  for (const [text, params] of cases) {
    const statement = await kv.prepare(text)
    const want = objects(await kv.query(text, params))
    t.same(statement.all(params), want, `all: ${text}`)
    t.same(statement.get(params), want[0], `get: ${text}`)
    t.same([...statement.iterate(params)], want, `iterate: ${text}`)
    // Raw: the same values, as arrays in the order of the statement's columns.
    const columns = statement.columns(params)
    t.same(columns, (await kv.query(text, params)).columns, `columns: ${text}`)
    t.same([...statement.iterate(params, { raw: true })], want.map((row) => columns.map((c) => row[c] ?? null)), `iterate raw: ${text}`)
  }
  // A scan past one batch, raw, on the path that decodes rows straight into arrays.
  const whole = await kv.prepare('kv')
  const raw = [...whole.iterate({}, { raw: true })]
  t.equal(raw.length, 2500)
  t.same(raw.slice(0, 2), [[key(0), 0, null], [key(1), 1, 'v1']], 'raw rows hold every column in order')
  t.same(raw.map((row) => row[0]), [...whole.iterate()].map((row) => row.k), 'raw and objects: the same rows in the same order')
})

t.test('iterate streams past query_rows_max on one snapshot; all refuses rather than cut', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  const count = query_rows_max + 1500
  await kv.query('insert kv $rows', { rows: Array.from({ length: count }, (_, i) => ({ k: key(i), n: i, v: null })) })
  const scan = await kv.prepare('kv | select k')
  const seen: string[] = []
  let wrote = false
  for (const row of scan.iterate()) {
    seen.push(row.k as string)
    if (!wrote) {
      // A write committed mid-scan is not in the scan's snapshot.
      await kv.query('insert kv {k: "zzz", n: 0}')
      wrote = true
    }
  }
  t.equal(seen.length, count, 'every row, none added by the write made during the scan')
  t.same(seen.slice(0, 3), [key(0), key(1), key(2)])
  t.equal(seen.at(-1), key(count - 1))
  t.throws(() => scan.all(), { code: 'not_allowed_here', message: /iterate/ })
  t.equal([...scan.iterate()].length, count + 1, 'a new iteration sees the write')
  // Leaving a loop early releases the snapshot: the database closes without waiting for it.
  for (const row of scan.iterate()) if (row.k === key(5)) break
})

t.test('the checked form is reused only for parameters of the same shape', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: Array.from({ length: 30 }, (_, i) => ({ k: key(i), n: i, v: null })) })
  const take = await kv.prepare('kv | take $n')
  t.equal(take.all({ n: 3 }).length, 3)
  t.equal(take.all({ n: 5 }).length, 5, 'a new value of the same shape takes its own value')
  t.throws(() => take.all({ n: -1 }), /whole number of 0 or more/, 'a negative count is refused, not run with the old check')
  t.throws(() => take.all({ n: 'three' }), /int/, 'a string is a type error')
  const byN = await kv.prepare('kv | where n == $n')
  t.same(byN.all({ n: 4 }).map((r) => r.k), [key(4)])
  t.throws(() => byN.all({ n: 'x' }), /cannot compare|is int/, 'another type is checked again')
})

t.test('a statement is planned once per shape of its parameters; only a get\'s key is made per call', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: Array.from({ length: 50 }, (_, i) => ({ k: key(i), n: i, v: null })) })
  const get = await kv.prepare('kv | get $k')
  const scan = await kv.prepare('kv | skip $s | take 2 | select k')
  const before = plan_templates_made.count
  for (let i = 0; i < 50; i += 1) t.equal(get.get({ k: key(i) })?.n, i)
  t.equal(get.get({ k: 'absent' }), undefined)
  t.same(scan.all({ s: 10 }).map((r) => r.k), [key(10), key(11)])
  t.same(scan.all({ s: 48 }).map((r) => r.k), [key(48), key(49)])
  t.same([...scan.iterate({ s: 49 })].map((r) => r.k), [key(49)])
  t.equal(plan_templates_made.count - before, 2, 'one plan for each statement, whatever the values')
  t.equal(get.get({ k: null }), undefined, 'a null key (another shape) finds nothing')
  t.equal(plan_templates_made.count - before, 3, 'and is planned once more')
})

t.test('writes run through run(); what the synchronous paths do not serve is refused with a clear error', async (t) => {
  const { db } = await openDatabase(t, `${schema}\ncollection users { id: int primary, email: string, index (email) }`)
  const kv = db.tenant('default')
  const insert = await kv.prepare('insert kv {k: $k, n: $n}')
  const result = await insert.run({ k: 'a', n: 1 })
  t.ok(typeof result.lsn === 'number' && result.lsn > 0, 'a write settles durable with its LSN')
  t.same((await kv.prepare('kv | get $k')).get({ k: 'a' }), { k: 'a', n: 1, v: null })
  const refused = { code: 'not_allowed_here' }
  t.throws(() => insert.get({ k: 'b', n: 2 }), refused, 'a write is not a read')
  t.throws(() => [...insert.iterate({ k: 'b', n: 2 })], refused)
  t.equal((await kv.query('kv | where k == "b"')).rows.length, 0, 'and wrote nothing')
  const sorted = await kv.prepare('kv | sort n desc')
  t.throws(() => sorted.all(), { code: 'not_allowed_here', message: /run\(\)/ })
  t.same(objects(await sorted.run()), objects(await kv.query('kv | sort n desc')), 'run() answers it')
  await kv.query('insert users {id: 1, email: "a@x"}')
  const byEmail = await kv.prepare('users | where email == $e')
  t.throws(() => byEmail.all({ e: 'a@x' }), refused, 'an index read runs asynchronously')
  t.same((await byEmail.run({ e: 'a@x' })).rows, [[1, 'a@x']], 'run() answers it')
  await t.rejects(kv.prepare('kv | wher k == 1'), /syntax|unknown|expected/i, 'a syntax error rejects prepare')
})

t.test('a suspended tenant refuses prepared reads as it refuses queries', async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'acme' })
  const acme = db.tenant('acme')
  await acme.query('insert kv {k: "a", n: 1}')
  const get = await acme.prepare('kv | get $k')
  t.same(get.get({ k: 'a' }), { k: 'a', n: 1, v: null })
  await db.ops({ op: 'suspend', name: 'acme' })
  t.throws(() => get.get({ k: 'a' }), /suspended/)
  await t.rejects(acme.query('kv | get $k', { k: 'a' }), /suspended/)
})

t.test('a tenant replaced since prepare needs ready() before a synchronous read, which then sees the new data', async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'acme' })
  const acme = db.tenant('acme')
  await acme.query('insert kv {k: "old", n: 1}')
  const get = await acme.prepare('kv | get $k')
  t.same(get.get({ k: 'old' }), { k: 'old', n: 1, v: null })
  await db.tenant('default').query('insert kv {k: "new", n: 2}')
  await db.ops({ op: 'delete', name: 'acme' })
  await db.ops({ op: 'fork', name: 'default', target: 'acme' })
  t.throws(() => get.get({ k: 'new' }), { code: 'not_allowed_here', message: /ready\(\)/ })
  await get.ready()
  t.same(get.get({ k: 'new' }), { k: 'new', n: 2, v: null })
  t.equal(get.get({ k: 'old' }), undefined)
})
