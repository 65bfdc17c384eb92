// The client's interface over a database opened in this process (connect({path})):
// the shared checks (test/helpers/client-suite.ts), the errors mapped to the HTTP API's
// codes and statuses, and transaction(fn), which only the embedded database has.
import { join } from 'node:path'
import t from 'tap'
import { connect, TenantdbError } from '../src/client/index.js'
import { package_root } from '../src/package-root.js'
import { clientSuite, rejection } from './helpers/client-suite.js'
import { tempDir } from './helpers/temp-dir.js'

const schema = join(package_root, 'examples', 'schema.eel')

clientSuite(t, async (t) => {
  const client = await connect({ path: join(tempDir(t), 'db'), schema })
  t.teardown(() => client.close())
  return client
})

t.test('connect({path, tenant}) is that tenant, with close()', async (t) => {
  const db = await connect({ path: join(tempDir(t), 'db'), schema, tenant: 'default' })
  t.equal(db.name, 'default')
  await db.query('insert users {id: 1, email: "a@example.com", name: "A"}')
  t.same((await db.client.tenants()).tenants.map((e) => e.name), ['default'])
  await db.close()
  const closed = await rejection(t, db.query('users'), 'a query after close')
  t.ok(closed.status !== undefined && closed.status >= 400, `a coded refusal (${closed.code} ${closed.status})`)
})

t.test('trends: the server samples them, so a database in this process refuses (not_allowed_here)', async (t) => {
  const client = await connect({ path: join(tempDir(t), 'db'), schema })
  t.teardown(() => client.close())
  t.match(await rejection(t, client.trends(), 'trends embedded'), { code: 'not_allowed_here', status: 400, message: /running server/ })
})

t.test('transaction(fn): statements on one snapshot, committed together; its errors mapped', async (t) => {
  const client = await connect({ path: join(tempDir(t), 'db'), schema })
  t.teardown(() => client.close())
  const db = client.tenant('default')
  await db.query('insert users {id: 1, email: "a@example.com", name: "A", age: 10}')
  const moved = await db.transaction(async (tx) => {
    const [[age]] = (await tx.query('users | get 1 | select age')).rows as [[number]]
    await tx.query('users | get 1 | update {age: $a}', { a: age + 5 })
    return age
  })
  t.equal(moved, 10)
  t.same((await db.query('users | get 1 | select age')).rows, [[15]])
  const err = await rejection(t, db.transaction(async (tx) => tx.query('users | where age = 3')), 'a syntax error inside')
  t.match(err, { code: 'syntax_error', status: 400 })
})

t.test('an error no client of a server meets is internal, its sentence kept (there is no server log)', async (t) => {
  const missing = join(tempDir(t), 'missing.eel')
  const err = await rejection(t, connect({ path: join(tempDir(t), 'db'), schema: missing }), 'a schema file that is missing')
  t.ok(err instanceof TenantdbError)
  t.match(err, { code: 'internal', status: 500 })
  t.ok(err.message.includes(missing), `the sentence names the file: ${err.message}`)
})

t.test('a caller\'s signal already aborted: aborted, before anything runs', async (t) => {
  const client = await connect({ path: join(tempDir(t), 'db'), schema })
  t.teardown(() => client.close())
  const controller = new AbortController()
  controller.abort()
  const err = await rejection(t, client.tenant('default').query('insert users {id: 1, email: "a@example.com", name: "A"}', {}, { signal: controller.signal }), 'an aborted call')
  t.match(err, { code: 'aborted', status: undefined })
  t.same((await client.tenant('default').query('users')).rows, [], 'nothing ran')
})

t.test('a caller\'s signal aborted while the call runs: aborted at once, the outcome unknown', async (t) => {
  const client = await connect({ path: join(tempDir(t), 'db'), schema })
  t.teardown(() => client.close())
  const db = client.tenant('default')
  const controller = new AbortController()
  const call = db.query('insert users {id: 1, email: "a@example.com", name: "A"}', {}, { signal: controller.signal })
  controller.abort()
  t.match(await rejection(t, call, 'an insert aborted as it runs'), { code: 'aborted', status: undefined })
  const rows = (await db.query('users | select id')).rows
  t.ok(rows.length <= 1, `the write may or may not have been applied (${rows.length} rows)`)
})
