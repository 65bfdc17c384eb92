// Float overflow is an error, like integer overflow (docs/language.md "Numbers"): JSON
// cannot carry IEEE infinity, so a result beyond ±1.7976931348623157e308 would read as
// null while `== null` is false. Arithmetic, sums and averages, and parameters that
// overflow fail with type_error, and no non-finite number reaches a row or an index.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { QueryError } from '../src/query/index.js'
import { package_root } from '../src/package-root.js'
import { api, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'float-token-0123456789abcdef'
const big = 1e308

async function setup(t: Test) {
  const db = await Database.open(join(tempDir(t), 'db'), { schema: [join(package_root, 'examples', 'schema.eel')] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const query = (text: string, params: Record<string, unknown> = {}) => call('/api/v1/t/default/query', { json: { query: text, params } })
  await query('insert orders [{id: 1, user: 1, amount: $a}, {id: 2, user: 1, amount: $a}, {id: 3, user: 2, amount: 2.5}]', { a: big })
  return { db, call, query }
}

const overflow = { code: 'type_error', conflict: false, error: /float overflow/ }

t.test('float overflow: arithmetic beyond the float range is 400 type_error, not null (HTTP)', async (t) => {
  const { query } = await setup(t)
  for (const text of [
    'orders | get 1 | select x: amount * 10',
    'orders | get 1 | select x: amount + amount',
    'orders | get 1 | select x: -amount - amount',
    'orders | get 1 | select x: amount / 0.1',
    'orders | get 1 | select x: -(amount * 10)',
    'orders | where amount * 10 == null | count',
  ]) {
    const res = await query(text)
    t.equal(res.status, 400, text)
    t.match(res.body, overflow, text)
  }
  t.same((await query('orders | get 3 | select x: amount * 10')).body.rows, [[25]], 'a finite result is unchanged')
  // Division by zero stays an error, for floats as for ints (never an infinity).
  t.match((await query('orders | get 3 | select x: amount / 0')).body, { code: 'type_error', error: /division by zero/ })
  t.same((await query('orders | get 1 | select x: amount / 10, y: -amount')).body.rows, [[big / 10, -big]])
})

t.test('float overflow: sum and avg whose sum leaves the float range fail (HTTP)', async (t) => {
  const { query } = await setup(t)
  for (const text of ['orders | aggregate s: sum(amount)', 'orders | aggregate a: avg(amount)', 'orders | aggregate s: sum(amount) by user']) {
    const res = await query(text)
    t.equal(res.status, 400, text)
    t.match(res.body, overflow, text)
  }
  t.same((await query('orders | where user == 2 | aggregate s: sum(amount), a: avg(amount), hi: max(amount)')).body.rows, [[2.5, 2.5, 2.5]])
  t.same((await query('orders | aggregate hi: max(amount), n: count()')).body.rows, [[big, 3]], 'max and count cannot overflow')
})

t.test('float overflow: an update that overflows changes nothing', async (t) => {
  const { query } = await setup(t)
  const res = await query('orders | where user == 1 | update {amount: amount * 10}')
  t.match(res.body, overflow)
  t.same((await query('orders | where user == 1 | select amount')).body.rows, [[big], [big]])
})

t.test('float overflow: a JSON number beyond the range is refused as a parameter (HTTP)', async (t) => {
  const { call } = await setup(t)
  // Raw bodies: JSON.parse reads 1e400 as Infinity, which JSON.stringify could not write.
  for (const [text, params, name] of [
    ['insert orders {id: 9, user: 1, amount: $a}', '{"a": 1e400}', 'a'],
    ['insert orders {id: 9, user: 1, amount: $a}', '{"a": -1e400}', 'a'],
    ['insert orders $rows', '{"rows": [{"id": 9, "user": 1, "amount": 1e999}]}', 'rows'],
    ['orders | where amount < $a | count', '{"a": 1e400}', 'a'],
  ] as const) {
    const res = await call('/api/v1/t/default/query', {
      method: 'POST', body: `{"query": ${JSON.stringify(text)}, "params": ${params}}`, headers: { 'content-type': 'application/json' },
    })
    t.equal(res.status, 400, params)
    t.match(res.body, { code: 'type_error', conflict: false, error: new RegExp(`parameter \\$${name} holds -?Infinity`) }, params)
  }
  t.same((await call('/api/v1/t/default/query', { json: { query: 'orders | count' } })).body.rows, [[3]], 'nothing was written')
})

t.test('float overflow: the embedding API refuses non-finite parameters anywhere in a value', async (t) => {
  const { db } = await setup(t)
  const tenant = db.tenant('default')
  for (const params of [
    { a: Infinity },
    { a: -Infinity },
    { a: NaN },
    { rows: [{ id: 9, user: 1, amount: Infinity }] },
    { j: { deep: [1, { x: -Infinity }] } },
  ]) {
    const err = await tenant.query('orders | where amount < 0 | count', params).then(() => null, (e: unknown) => e)
    t.type(err, QueryError, JSON.stringify(Object.keys(params)))
    t.match(err, { code: 'type_error', message: /numbers must be finite/ })
  }
  const err = await tenant.query('insert orders {id: 9, user: 1, amount: 1e308 * 10}').then(() => null, (e: unknown) => e)
  t.match(err, { code: 'type_error', message: /float overflow/ }, 'an overflowing literal expression is never stored')
  t.same((await tenant.query('orders | count')).rows, [[3]])
  const deep = await tenant.query('orders | count', { j: JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`) }).then(() => null, (e: unknown) => e)
  t.match(deep, { code: 'type_error', message: /parameter \$j nests deeper than 100 levels/ })
})
