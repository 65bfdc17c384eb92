// The client's one interface (docs/client.md, "Calls"), the same checks run against a
// real server (test/client-remote.test.ts) and a database opened in this process
// (test/client-embedded.test.ts): each breaks when one side answers a call, or refuses
// one, differently from the other or from the HTTP API's contract (docs/api.md).
// `open` gives a client of a fresh database over examples/schema.eel.
import type { Test } from 'tap'
import { TenantdbError, type Client } from '../../src/client/index.js'

export type OpenClient = (t: Test) => Promise<Client>

/** The error a call rejected with, failing the test if it resolved. */
export async function rejection(t: Test, call: Promise<unknown>, what: string): Promise<TenantdbError> {
  try {
    await call
  } catch (err) {
    t.ok(err instanceof TenantdbError, `${what}: a TenantdbError (${String(err)})`)
    return err as TenantdbError
  }
  t.fail(`${what}: resolved, should have failed`)
  return new TenantdbError('internal', 'resolved')
}

const ada = { id: 1, email: 'ada@example.com', name: 'Ada', age: 36 }
const bo = { id: 2, email: 'bo@example.com', name: 'Bo', age: 25 }

export function clientSuite(t: Test, open: OpenClient): void {
  t.test('query: a write, then a read with params, as the HTTP API answers them', async (t) => {
    const db = (await open(t)).tenant('default')
    const written = await db.query('insert users $u', { u: ada })
    t.same(written.columns, ['affected'])
    t.same(written.rows, [[1]])
    t.type(written.lsn, 'number', 'a write answers its lsn')
    const read = await db.query('users | where age >= $min | select name, age', { min: 30 })
    t.same(read.columns, ['name', 'age'])
    t.same(read.rows, [['Ada', 36]])
    t.match(read.plan, { collection: 'users' })
  })

  t.test('an atomic block is query text: both statements or neither', async (t) => {
    const db = (await open(t)).tenant('default')
    const result = await db.query('atomic { insert users $a; insert users $b }', { a: ada, b: bo })
    t.equal(result.results?.length, 2, 'one result per statement')
    const err = await rejection(t, db.query('atomic { insert users $a; insert users $b }', { a: { ...ada, id: 3, email: 'x@example.com' }, b: bo }), 'a block with a duplicate key')
    t.equal(err.code, 'constraint_violation')
    t.same((await db.query('users | select id')).rows, [[1], [2]], 'the first insert of the failed block was not written')
  })

  t.test('prepare: run writes, get and all read rows as objects', async (t) => {
    const db = (await open(t)).tenant('default')
    const insert = await db.prepare('insert users $u')
    await insert.run({ u: ada })
    await insert.run({ u: bo })
    const byId = await db.prepare('users | get $id | select name, age')
    t.same(await byId.get({ id: 2 }), { name: 'Bo', age: 25 })
    t.equal(await byId.get({ id: 99 }), undefined, 'no row: undefined')
    const all = await db.prepare('users | select id, name')
    t.same(await all.all(), [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bo' }])
    t.equal(all.text, 'users | select id, name')
  })

  t.test('prepare: all() of more rows than one answer holds fails, never a silent cut', async (t) => {
    const db = (await open(t)).tenant('default')
    const rows = Array.from({ length: 10_001 }, (_, i) => ({ id: i, user: 1, amount: 1 }))
    await db.query('insert orders $rows', { rows })
    const every = await db.prepare('orders | select id')
    t.match(await rejection(t, every.all(), 'all() of 10 001 rows'), { code: 'not_allowed_here', status: 400 })
    t.same(await every.get(), { id: 0 }, 'get() reads the first')
  })

  t.test('ops: create, fork, snapshot, restore, delete; the tenant and the client alike', async (t) => {
    const client = await open(t)
    t.match(await client.ops({ op: 'create', name: 'acme' }), { ok: true, message: 'created tenant acme' })
    const acme = client.tenant('acme')
    await acme.query('insert users $u', { u: ada })
    t.match(await acme.ops({ op: 'snapshot', target: 'before' }), { ok: true, message: /^snapshot before of acme/ }, 'name defaults to the tenant')
    await acme.query('insert users $u', { u: bo })
    t.match(await client.ops({ op: 'fork', name: 'acme', target: 'acme_copy' }), { ok: true })
    t.same((await client.tenant('acme_copy').query('users | select id')).rows, [[1], [2]], 'the fork holds the head')
    t.match(await acme.ops({ op: 'restore', name: 'acme@before' }), { ok: true, message: /^restored acme to snapshot before/ })
    t.same((await acme.query('users | select id')).rows, [[1]], 'restored to the snapshot')
    t.match(await client.ops({ op: 'delete', name: 'acme_copy' }), { ok: true, message: /^deleted acme_copy/ })
    const names = (await client.tenants()).tenants.map((e) => e.name).sort()
    t.same(names, ['acme', 'default'])
  })

  t.test('snapshots, snapshot reads, diff, collections, schema, usage', async (t) => {
    const client = await open(t)
    const db = client.tenant('default')
    await db.query('insert users $u', { u: ada })
    await db.ops({ op: 'snapshot', target: 'before' })
    await db.query('insert users $u', { u: bo })
    const listed = await db.snapshots()
    t.equal(listed.tenant, 'default')
    t.same(listed.snapshots.map((s) => s.name), ['before'])
    t.same((await db.query('users | select id', {}, { snapshot: 'before' })).rows, [[1]], 'the snapshot reads what it pinned')
    t.same((await db.query('users | select id')).rows, [[1], [2]], 'the head has both')
    const diff = await db.diff({ from: 'before', collection: 'users' })
    t.match(diff, { from: { name: 'before' }, to: { name: 'head' }, truncated: false })
    t.same(diff.collections.users?.added.map((row) => row.id), [2])
    const collections = await db.collections()
    t.match(collections.collections.find((c) => c.name === 'users'), { rows: 2 })
    t.match(await db.schema(), { tenant: { pending: false } })
    t.match(await db.usage(), { tenant: 'default' })
    t.match(await client.health(), { ok: true })
    t.match(await client.healthDetail(), { ok: true, wal: { current_lsn: Number } })
    t.match(await client.stats(), { tenants: Number })
  })

  t.test('errors: each refusal with its code, status and details', async (t) => {
    const client = await open(t)
    const db = client.tenant('default')
    const syntax = await rejection(t, db.query('users | where age = 3'), 'a syntax error')
    t.match(syntax, { code: 'syntax_error', status: 400, conflict: false })
    t.match(syntax.details, { line: 1, column: 19 }, 'where it is wrong')
    const tenant = await rejection(t, client.tenant('nobody').query('users'), 'an unknown tenant')
    t.match(tenant, { code: 'unknown_tenant', status: 404 })
    await db.ops({ op: 'snapshot', target: 'pinned' })
    const readonly = await rejection(t, db.query('insert users $u', { u: ada }, { snapshot: 'pinned' }), 'a write under a snapshot')
    t.match(readonly, { code: 'readonly_snapshot', status: 400 })
    const snapshot = await rejection(t, db.query('users', {}, { snapshot: 'nothing' }), 'an unknown snapshot')
    t.match(snapshot, { code: 'unknown_snapshot', status: 404 })
    const exists = await rejection(t, client.ops({ op: 'create', name: 'default' }), 'a tenant that exists')
    t.match(exists, { code: 'tenant_exists', status: 409 })
    const nameless = await rejection(t, client.ops({ op: 'create' }), 'an operation naming no tenant')
    t.match(nameless, { code: 'bad_request' })
    const from = await rejection(t, db.diff({ from: 'nothing' }), 'a diff from an unknown snapshot')
    t.match(from, { code: 'unknown_snapshot', status: 404 })
    const collection = await rejection(t, db.diff({ from: 'pinned', collection: 'nothing' }), 'a diff of an unknown collection')
    t.match(collection, { code: 'unknown_collection', status: 400 })
  })

  t.test('a lost first-committer-wins race fails with conflict: true', async (t) => {
    const db = (await open(t)).tenant('default')
    await db.query('insert users $u', { u: { ...ada, age: 0 } })
    let found: TenantdbError | undefined
    for (let round = 0; round < 50 && found === undefined; round++) {
      const settled = await Promise.allSettled(Array.from({ length: 8 }, () => db.query('atomic { users | get 1 | update {age: age + 1}; users | get 1 }')))
      for (const s of settled) {
        if (s.status === 'rejected') {
          t.ok(s.reason instanceof TenantdbError, 'only TenantdbError')
          found ??= s.reason as TenantdbError
        }
      }
    }
    t.ok(found !== undefined, 'concurrent increments of one row raced')
    t.match(found, { code: 'conflict', conflict: true, status: 400 }, 'the query route\'s conflict')
  })

  t.test('tail: the events after a position, each once, in LSN order, by collections; break ends it', async (t) => {
    const db = (await open(t)).tenant('default')
    const start = (await db.query('insert users $u', { u: ada })).lsn as number
    const lsns: number[] = []
    for (const text of ['insert users $b', 'insert orders {id: 1, user: 2, amount: 5.5}', 'atomic { users | get 2 | update {age: 26}; insert orders {id: 2, user: 2, amount: 1} }']) {
      lsns.push((await db.query(text, { b: bo })).lsn as number)
    }
    const take = async (n: number, options: Parameters<typeof db.tail>[0]) => {
      const got: Array<{ lsn: number; collections: string[] }> = []
      for await (const event of db.tail(options)) {
        got.push({ lsn: event.lsn, collections: event.changes.map((c) => c.collection) })
        if (got.length === n) break
      }
      return got
    }
    t.same(await take(3, { after: start }), [
      { lsn: lsns[0], collections: ['users'] }, { lsn: lsns[1], collections: ['orders'] }, { lsn: lsns[2], collections: ['users', 'orders'] },
    ], 'every event after `after`, in order')
    t.same(await take(2, { after: start, collections: ['orders'] }), [
      { lsn: lsns[1], collections: ['orders'] }, { lsn: lsns[2], collections: ['orders'] },
    ], 'one collection: only its changes')
    t.same(await take(3, { after: start, collections: ['orders', 'users'] }), [
      { lsn: lsns[0], collections: ['users'] }, { lsn: lsns[1], collections: ['orders'] }, { lsn: lsns[2], collections: ['users', 'orders'] },
    ], 'several collections: each of their changes, once')
    // Live: an event committed after the feed caught up comes too.
    const live = take(1, { after: lsns[2] as number })
    const later = (await db.query('insert users $u', { u: { ...ada, id: 3, email: 'c@example.com' } })).lsn
    t.same(await live, [{ lsn: later, collections: ['users'] }], 'a live event')
    const misspelt = await rejection(t, take(1, { after: start, collections: ['orders', 'nope'] }), 'a collection the schema lacks')
    t.match(misspelt, { code: 'unknown_collection', status: 400 })
    const aborted = new AbortController()
    const waiting = take(1, { after: later as number, signal: aborted.signal })
    setTimeout(() => aborted.abort(), 50)
    t.match(await rejection(t, waiting, 'an aborted feed'), { code: 'aborted', status: undefined })
  })

  t.test('tokens: issued, listed without the secret, revoked; an unknown tenant refused', async (t) => {
    const client = await open(t)
    const db = client.tenant('default')
    t.same((await db.tokens()).tokens, [], 'none yet')
    const issued = await db.issueToken({ scope: 'read', name: 'web app' })
    t.match(issued, { tenant: 'default', scope: 'read', name: 'web app', expires_at: null })
    t.match(issued.token, /^tdb_/)
    const listed = await db.tokens()
    t.equal(listed.tenant, 'default')
    t.same(listed.tokens.map((x) => [x.id, x.scope, x.name]), [[issued.id, 'read', 'web app']])
    t.notOk('token' in (listed.tokens[0] as object), 'a listing never holds the secret')
    t.match(await db.revokeToken(issued.id), { ok: true })
    t.same((await db.tokens()).tokens, [], 'revoked')
    const unknown = await rejection(t, client.tenant('nothing').tokens(), 'the tokens of an unknown tenant')
    t.match(unknown, { code: 'unknown_tenant', status: 404 })
    const scope = await rejection(t, db.issueToken({ scope: 'owner' as 'read' }), 'a scope that is none')
    t.match(scope, { code: 'bad_request', status: 400 })
  })

  t.test('schemaSource: the schema files the database was opened with, each after its # file: line', async (t) => {
    const source = await (await open(t)).schemaSource()
    t.match(source, /^# file: .*schema\.eel\n/)
    t.match(source, /users/)
  })

  t.test('backup: a tar archive of exactly `bytes` bytes, holding every commit up to `lsn`', async (t) => {
    const client = await open(t)
    const written = await client.tenant('default').query('insert users $u', { u: ada })
    const { lsn, bytes, body } = await client.backup()
    t.ok(lsn >= (written.lsn as number), `the archive's LSN ${lsn} is at or past the write's ${String(written.lsn)}`)
    let read = 0
    let first: Uint8Array | undefined
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      first ??= chunk
      read += chunk.length
    }
    t.equal(read, bytes, 'the body is exactly the bytes announced')
    t.ok(bytes > 0 && bytes % 512 === 0, 'a whole number of tar blocks')
    t.ok(first !== undefined && first.length >= 512, 'a tar header first')
  })

  t.test('access: a service credential (or the process holding the database) opens everything', async (t) => {
    t.same(await (await open(t)).access(), { credential: 'service' })
  })
}
