// Restoring a tenant to a snapshot (docs/api.md, "Operations"): through the library,
// Eel's `tenant restore` and HTTP. The head becomes the snapshot's rows and indexes in
// one commit; other tenants, the snapshots and later snapshots stay; auto ids never go
// back; the change tail reports one `restored` event; errors are the documented ones.
import t from 'tap'
import { Database } from '../src/database/index.js'
import { openDatabase } from './helpers/database.js'
import { api, openExampleDatabase, startServer } from './helpers/http-server.js'

const schema = `collection users {
  id: int primary,
  email: string unique,
  age: int?,
}
collection notes { text: string }
`

type Rows = unknown[][]
const rowsOf = async (db: Database, tenant: string, text: string, snapshot?: string): Promise<Rows> =>
  (await db.tenant(tenant).query(text, {}, snapshot === undefined ? {} : { snapshot })).rows

t.test('library: the head becomes the snapshot; the rest stays', async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'acme' })
  const acme = db.tenant('acme')
  await acme.query('insert users [{id: 1, email: "a@x"}, {id: 2, email: "b@x", age: 30}]')
  await acme.query('insert notes [{text: "one"}, {text: "two"}]')
  await db.tenant('default').query('insert users {id: 9, email: "d@x"}')
  const taken = await db.ops({ op: 'snapshot', name: 'acme', target: 'before' })
  const snapshotLsn = Number(/at lsn (\d+)/.exec(taken.message)?.[1])

  await acme.query('users | where id == 2 | update {age: 31, email: "b2@x"}')
  await acme.query('users | where id == 1 | delete')
  await acme.query('insert users {id: 3, email: "c@x"}')
  await acme.query('insert notes {text: "three"}')
  await db.ops({ op: 'snapshot', name: 'acme', target: 'after' })
  await db.tenant('default').query('insert users {id: 10, email: "e@x"}')

  const result = await db.ops({ op: 'restore', name: 'acme@before' })
  t.same(result, { ok: true, message: `restored acme to snapshot before (lsn ${snapshotLsn})` })
  t.same(await rowsOf(db, 'acme', 'users | select id, email, age'), [[1, 'a@x', null], [2, 'b@x', 30]], 'the rows are the snapshot\'s')
  t.same(await rowsOf(db, 'acme', 'users | where email == "b@x" | select id'), [[2]], 'and so is the unique index')
  t.same((await acme.query('users | where email == "b2@x" | select id')).rows, [], 'the index entry written after it is gone')
  t.same(await rowsOf(db, 'acme', 'notes | select text'), [['one'], ['two']])
  t.same(await rowsOf(db, 'default', 'users | select id'), [[9], [10]], 'another tenant is untouched')
  t.same(await rowsOf(db, 'acme', 'users | select id', 'after'), [[2], [3]], 'a later snapshot keeps what the head lost')
  t.same(acme.snapshots().snapshots.map((s) => s.name).sort(), ['after', 'before'], 'every snapshot stays')
  t.match(db.tenants().tenants.find((r) => r.name === 'acme'), { state: 'active', parent: null }, 'the record stays')

  const inserted = await acme.query('insert notes {text: "four"} ')
  t.equal(inserted.rows[0]?.[0], 1)
  const ids = (await rowsOf(db, 'acme', 'notes | select id, text')).map((r) => r[0])
  t.same(ids.slice(0, 2), [1, 2], 'the restored rows keep their ids')
  t.ok(Number(ids[2]) > 3, `the next auto id (${String(ids[2])}) comes after "three" (3), which the restore took away: no id is issued twice`)
  t.same(await rowsOf(db, 'acme', 'users | where id == 3 | count'), [[0]])
  await acme.query('insert users {id: 3, email: "c@x"}')
  t.pass('a key the restore took away can be written again')
})

t.test('library: auto ids stay ahead after a restore and a reopen', async (t) => {
  const { db: first, dir, schemaFile } = await openDatabase(t, schema)
  await first.tenant('default').query('insert notes {text: "a"}')
  await first.ops({ op: 'snapshot', name: 'default', target: 's' })
  await first.tenant('default').query('insert notes [{text: "b"}, {text: "c"}]')
  await first.ops({ op: 'restore', name: 'default@s' })
  await first.close()
  const db = await Database.open(`${dir}/db`, { schema: [schemaFile] })
  t.teardown(() => db.close())
  await db.tenant('default').query('insert notes {text: "d"}')
  t.same(await rowsOf(db, 'default', 'notes | select id, text'), [[1, 'a'], [4, 'd']], 'ids 2 and 3 are never issued again')
})

t.test('library: Eel `tenant restore`, errors, a suspended tenant, an empty snapshot', async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'acme' })
  await db.ops({ op: 'snapshot', name: 'acme', target: 'empty' })
  await db.tenant('acme').query('insert users {id: 1, email: "a@x"}')
  await db.ops({ op: 'suspend', name: 'acme' })
  t.match(await db.run('tenant restore acme@empty'), { ok: true, message: /^restored acme to snapshot empty/ })
  t.match(db.tenants().tenants.find((r) => r.name === 'acme'), { state: 'suspended' }, 'a suspended tenant stays suspended')
  await db.ops({ op: 'resume', name: 'acme' })
  t.same(await rowsOf(db, 'acme', 'users | count'), [[0]], 'restored to a snapshot of the tenant before any row')
  await db.tenant('acme').query('insert users {id: 1, email: "a@x"}')
  t.pass('and it takes writes again (its migration applied anew)')

  const refused = async (request: unknown, code: string, message: RegExp) => {
    await t.rejects(db.ops(request as never), { code, message }, JSON.stringify(request))
  }
  await refused({ op: 'restore', name: 'acme@nope' }, 'unknown_snapshot', /tenant 'acme' has no snapshot 'nope'/)
  await refused({ op: 'restore', name: 'nobody@empty' }, 'unknown_tenant', /no tenant named 'nobody'/)
  await refused({ op: 'restore', name: 'acme' }, 'bad_request', /restore names a snapshot as tenant@snapshot/)
  await refused({ op: 'restore' }, 'bad_request', /name must be a string/)
})

t.test('library: a write racing a restore loses with conflict; the tail reports the restore once', async (t) => {
  const { db } = await openDatabase(t, schema)
  const tenant = db.tenant('default')
  await tenant.query('insert users {id: 1, email: "a@x"}')
  await db.ops({ op: 'snapshot', name: 'default', target: 's' })
  const after = (await tenant.tail({ after: 0, limit: 1000 })).last_lsn
  const results = await Promise.allSettled([
    tenant.query('insert users {id: 2, email: "b@x"}'),
    db.ops({ op: 'restore', name: 'default@s' }),
  ])
  t.equal(results[1]?.status, 'fulfilled', 'the restore committed')
  const write = results[0]
  if (write?.status === 'rejected') t.match(write.reason, { code: 'conflict' }, 'a racing write fails with conflict')
  const rows = await rowsOf(db, 'default', 'users | select id')
  t.ok(JSON.stringify(rows) === '[[1]]', `the head is the snapshot whatever the order: ${JSON.stringify(rows)}`)

  const page = await tenant.tail({ after, limit: 1000 })
  const restores = page.events.filter((e) => e.restored !== undefined)
  t.equal(restores.length, 1, 'one restore event')
  const event = restores[0]
  const snapshotLsn = tenant.snapshots().snapshots[0]?.lsn
  t.match(event, { tenant: 'default', changes: [], restored: { snapshot: 's', lsn: snapshotLsn } })
  const filtered = await tenant.tail({ after, limit: 1000, collection: 'notes' })
  t.same(filtered.events.map((e) => e.lsn), [event?.lsn], 'a tail of another collection gets it too')
})

t.test('HTTP: restore over /ops, its errors, and the tail', async (t) => {
  const token = 'restore-token-0123456789'
  const { origin } = await startServer(t, { token, db: await openExampleDatabase(t) })
  const call = api(origin, token)
  const op = (tenant: string, body: unknown) => call(`/api/v1/t/${tenant}/ops`, { json: body })
  const query = (text: string) => call('/api/v1/t/default/query', { json: { query: text } })
  await query('insert users {id: 1, email: "a@x", name: "A"}')
  await op('default', { op: 'snapshot', target: 'before' })
  const { body: { last_lsn } } = await call('/api/v1/t/default/tail?after=0&limit=1000')
  await query('insert users {id: 2, email: "b@x", name: "B"}')

  const ok = await op('default', { op: 'restore', name: 'default@before' })
  t.equal(ok.status, 200)
  t.match(ok.body, { ok: true, message: /^restored default to snapshot before \(lsn \d+\)$/ })
  t.same((await query('users | select id')).body.rows, [[1]])

  const tail = await call(`/api/v1/t/default/tail?after=${last_lsn}`)
  t.same(tail.body.events.map((e: { changes: unknown[]; restored?: unknown }) => [e.changes.length, e.restored ?? null]), [
    [1, null],
    [0, { snapshot: 'before', lsn: Number(/lsn (\d+)/.exec(ok.body.message)?.[1]) }],
  ], 'the insert, then the restore')

  const cases: Array<[unknown, number, string]> = [
    [{ op: 'restore', name: 'default@nope' }, 404, 'unknown_snapshot'],
    [{ op: 'restore', name: 'nobody@before' }, 404, 'unknown_tenant'],
    [{ op: 'restore', name: 'default' }, 400, 'bad_request'],
    [{ op: 'restore' }, 400, 'bad_request'],
    [{ op: 'restore', name: 'Bad@before' }, 400, 'bad_request'],
  ]
  for (const [body, status, code] of cases) {
    const res = await op('default', body)
    t.equal(res.status, status, JSON.stringify(body))
    t.match(res.body, { code }, JSON.stringify(body))
  }
})
