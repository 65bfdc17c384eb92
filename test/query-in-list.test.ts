// `x in [..]` with long lists: a list that does not depend on the row
// costs each row one lookup, not a walk (in_comparisons counts them); `==`'s equality
// is kept (ints and floats, -0, timestamps and ISO strings, lists and records, null);
// a long statement stops at its deadline while it reads; a list literal longer than
// in_list_literals_max is refused with a 400 that says so.
import t from 'tap'
import type { Value } from '../src/lang/ast.js'
import { compareValues } from '../src/codec/index.js'
import { in_list_literals_max } from '../src/limits.js'
import { in_comparisons } from '../src/query/values/in-list.js'
import { parseTimestamp } from '../src/query/values/index.js'
import { harness, type Harness } from './helpers/query-runner.js'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'

const schema = `
collection m { id: int primary, v: int, j: json?, at: timestamp?, s: string? }
`

async function seeded(t: Parameters<typeof harness>[0], n: number): Promise<Harness> {
  const h = await harness(t, schema)
  for (let from = 0; from < n; from += 5000) {
    const rows = Array.from({ length: Math.min(5000, n - from) }, (_, i) => ({ id: from + i, v: (from + i) * 7 }))
    await h.q('insert m $rows', { rows })
  }
  return h
}

const range = (n: number, f: (i: number) => number = (i) => i) => Array.from({ length: n }, (_, i) => f(i))

t.test('a long constant list costs each row one comparison, literal or parameter, at 1000 and 4000 rows alike', async (t) => {
  for (const n of [1000, 4000]) {
    const { q } = await seeded(t, n)
    const list = range(n, (i) => i * 7)
    let before = in_comparisons.count
    // v is no key: every row is read and its `where` evaluated.
    t.same((await q(`m | where v in [${list.join(', ')}] | count`)).rows, [[n]])
    t.equal(in_comparisons.count - before, n, `${n} rows, a ${n}-value literal: one comparison a row (a walk made ${(n * (n + 1)) / 2})`)
    before = in_comparisons.count
    t.same((await q('m | where v in $list | count', { list })).rows, [[n]])
    t.equal(in_comparisons.count - before, n, `${n} rows, a ${n}-value parameter: one comparison a row`)
    before = in_comparisons.count
    t.same((await q('m | where v + 1 in $list | count', { list })).rows, [[0]])
    t.equal(in_comparisons.count - before, n, 'no match costs one comparison too')
  }
})

/** `left in list` as docs/language.md defines it: `==` against each item, a timestamp equal to the ISO string naming it. */
function modelIn(left: Value, list: Value[]): boolean {
  if (left === null) return false
  return list.some((item) => {
    let [a, b] = [left, item]
    if (a instanceof Date && typeof b === 'string') b = parseTimestamp(b) ?? b
    else if (typeof a === 'string' && b instanceof Date) a = parseTimestamp(a) ?? a
    return compareValues(a, b) === 0
  })
}

t.test('long lists keep == : numbers by value, -0, strings, timestamps and their ISO strings, lists, records, null', async (t) => {
  const h = await harness(t, schema)
  const values: Value[] = [0, -0, 1, 1.5, 3, -7, 2 ** 53 - 1, 'a', '', 'A', '3', true, false, null, [1, 2], [2, 1], [], { a: 1, b: [2] }, { b: [2], a: 1 }, { a: 2 }, '2024-01-01T00:00:00Z']
  const rows = values.map((j, id) => ({ id, v: id, j }))
  await h.q('insert m $rows', { rows })
  const lists: Value[][] = [
    [3.0, -0, 'A', true, null, [1, 2], { a: 1, b: [2] }, 'zz', 99, 100, 101],
    [0, 1.5, '', false, [], { a: 2 }, '2024-01-01T00:00:00.000Z', 5, 6, 7, 8, 9],
    [[2, 1], '3', 2 ** 53 - 1, -7, 'a', { b: [2], a: 1 }, 'x', 'y', 'w', 'v', 'u'],
  ]
  for (const list of lists) {
    const want = rows.filter((row) => modelIn(row.j, list)).map((row) => row.id)
    t.ok(want.length > 0, 'some rows match')
    t.same((await h.q('m | where j in $list | sort id | select id', { list })).rows.flat(), want, JSON.stringify(list))
  }
  const literal = (await h.q('m | where j in [3.0, -0, "A", true, null, [1, 2], {b: [2], a: 1}, "zz", 99, 100, 101] | sort id | select id')).rows.flat()
  t.same(literal, rows.filter((row) => modelIn(row.j, lists[0] as Value[])).map((row) => row.id), 'a literal list the same')
})

t.test('long lists: a timestamp equals the ISO strings naming its instant, and a string the timestamps it names', async (t) => {
  const h = await harness(t, schema)
  const instants = ['2024-01-01T00:00:00Z', '2024-02-29T12:30:00Z', '1969-12-31T23:59:59.999Z', '2030-06-01T00:00:00Z']
  await h.q('insert m $rows', { rows: instants.map((s, id) => ({ id, v: id, at: s, s })) })
  const isoList = ['2024-01-01', '2024-02-29T12:30:00.000Z', 'nope', 'a', 'b', 'c', 'd', 'e', 'f', 'g']
  t.same((await h.q('m | where at in $list | sort id | select id', { list: isoList })).rows.flat(), [0, 1], 'a timestamp field against strings')
  const dates: Value[] = [new Date('1969-12-31T23:59:59.999Z'), new Date('2030-06-01T00:00:00Z'), ...range(9, (i) => i)]
  t.same((await h.q('m | where s in $list | sort id | select id', { list: dates })).rows.flat(), [2, 3], 'a string field against timestamps')
  t.same((await h.q('m | where at in $list | sort id | select id', { list: dates })).rows.flat(), [2, 3], 'timestamps against timestamps')
})

t.test('a long list over many rows stops at the statement deadline, while it reads', async (t) => {
  const n = 40_000
  const { runner } = await seeded(t, n)
  const ids = range(n)
  for (const text of ['m | where id in $ids | count', 'm | where v in $vs | count']) {
    const params = { ids, vs: range(n, (i) => i * 7) }
    const answered = await runner.run('default', text, params, { time_ms_max: 10_000 })
    t.same(answered.rows, [[n]], `${text}: answered within a generous limit (a walk took about 11 s)`)
    const started = Date.now()
    const err = await runner.run('default', text, params, { time_ms_max: 20 }).then(() => undefined, (e: unknown) => e)
    const took = Date.now() - started
    t.match(err, { code: 'query_timeout' }, `${text}: query_timeout`)
    t.ok(took < 1500, `${text}: stopped ${took} ms after it started, near its 20 ms deadline`)
  }
})

t.test(`an in list of more than ${in_list_literals_max} literals is a 400 naming the limit; a parameter may be longer`, async (t) => {
  const { db } = await openDatabase(t, schema)
  const token = 'in-list-token-0123456789'
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  await call('/api/v1/t/default/query', { json: { query: 'insert m $rows', params: { rows: range(3).map((id) => ({ id, v: id })) } } })
  const list = (n: number) => range(n).join(', ')
  const atLimit = await call('/api/v1/t/default/query', { json: { query: `m | where id in [${list(in_list_literals_max)}] | count` } })
  t.equal(atLimit.status, 200)
  t.same(atLimit.body.rows, [[3]])
  const over = await call('/api/v1/t/default/query', { json: { query: `m | where id in [${list(in_list_literals_max + 1)}] | count` } })
  t.equal(over.status, 400)
  t.match(over.body, {
    code: 'syntax_error',
    error: new RegExp(`list of ${in_list_literals_max + 1} values after in is longer than the limit of ${in_list_literals_max}`),
    hint: /as a parameter/,
    line: 1,
    column: 17,
  })
  const param = await call('/api/v1/t/default/query', { json: { query: 'm | where id in $ids | count', params: { ids: range(3 * in_list_literals_max) } } })
  t.equal(param.status, 200)
  t.same(param.body.rows, [[3]])
  const notIn = await call('/api/v1/t/default/query', { json: { query: `m | select x: [${list(in_list_literals_max + 1)}] | take 1` } })
  t.equal(notIn.status, 200, 'other list literals are not counted')
})
