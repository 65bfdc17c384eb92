// The read routes over real HTTP on 127.0.0.1: health, stats, tenants, collections,
// schema, snapshots, diff, the poll tail, and the error statuses each can give.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { encodeCommitHeader } from '../src/txn/index.js'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'
import { pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'
import { tail_wait_ms_max } from '../src/limits.js'
import { flipByteInLeaf } from './helpers/damage-page.js'
import { internalsOf } from '../src/database/internals.js'

const token = 'routes-token-0123456789abcdef'
const schema = 'collection users {\n  id: int primary,\n  name: string,\n  age: int?,\n  index (age),\n}\ncollection notes {\n  id: int primary,\n  text: string,\n}\n'

async function setup(t: Test, openOptions = {}) {
  const dir = tempDir(t)
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, schema)
  const db = await Database.open(join(dir, 'db'), { ...openOptions, schema: [schemaFile] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  return { db, origin, call: api(origin, token) }
}

t.test('health, health detail and stats', async (t) => {
  const { call } = await setup(t)
  const live = await call('/api/v1/health')
  t.equal(live.status, 200)
  t.match(live.body, { ok: true, tenant: 'default', version: /^\d+\.\d+\.\d+/ })
  const detail = await call('/api/v1/health/detail')
  t.equal(detail.status, 200)
  t.match(detail.body, {
    ok: true, corruption: { total: 0, reports: [] },
    wal: { current_lsn: Number, checkpoint_lsn: Number, lag_bytes: Number, bytes: Number },
    recovery: { replayed_frames: Number, open_micros: Number },
    fsync: { count: Number, max_micros: Number, buckets: Array },
    page_count: Number, db_dir: String,
  })
  const stats = await call('/api/v1/stats')
  t.equal(stats.status, 200)
  t.match(stats.body, { page_count: Number, wal_bytes: Number, checkpoint_lsn: Number, corruption_count: 0, db_dir: String, tenants: 1, cache: { hits: Number }, uptime_s: Number })
  t.notOk('reports' in stats.body, 'stats omit the report list')
})

t.test('tenants, collections, schema, snapshots and the schema source', async (t) => {
  const { db, call } = await setup(t)
  await db.tenant('default').query('insert users [{id: 1, name: "a", age: 3}, {id: 2, name: "b"}]')
  const tenants = await call('/api/v1/tenants')
  t.equal(tenants.status, 200)
  t.match(tenants.body, { tenants: [{ name: 'default', state: 'active', created_at: String, parent: null, schema: { fingerprint: String, pending: false } }] })

  const collections = await call('/api/v1/t/default/collections')
  t.equal(collections.status, 200)
  t.same(collections.body, { tenant: 'default', collections: [{ name: 'notes', rows: 0, indexes: [] }, { name: 'users', rows: 2, indexes: ['age'] }] })

  const schemaStatus = await call('/api/v1/t/default/schema')
  t.equal(schemaStatus.status, 200)
  t.match(schemaStatus.body, { fingerprint: String, ir: { collections: Array }, tenant: { applied_fingerprint: schemaStatus.body.fingerprint, pending: false, blocked: null } })

  await db.ops({ op: 'create', name: 'fresh' })
  const pending = await call('/api/v1/t/fresh/schema')
  t.match(pending.body, { tenant: { applied_fingerprint: null, pending: true } }, 'the schema route does not migrate')
  t.match((await call('/api/v1/t/fresh/schema')).body, { tenant: { pending: true } }, 'still pending after asking')
  await call('/api/v1/t/fresh/collections')
  t.match((await call('/api/v1/t/fresh/schema')).body, { tenant: { pending: false } }, 'collections migrates')

  t.same((await call('/api/v1/t/default/snapshots')).body, { tenant: 'default', snapshots: [] })
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  const snaps = await call('/api/v1/t/default/snapshots')
  t.match(snaps.body, { tenant: 'default', snapshots: [{ name: 'before', lsn: Number, created_at: String }] })

  const source = await call('/api/v1/schema.eel')
  t.equal(source.status, 200)
  t.match(source.headers.get('content-type'), /^text\/plain/)
  t.equal(source.body, `# file: schema.eel\n${schema}`)
})

t.test('diff between a snapshot and head, a collection, a limit', async (t) => {
  const { db, call } = await setup(t)
  const q = (text: string) => db.tenant('default').query(text)
  await q('insert users [{id: 1, name: "a"}, {id: 2, name: "b"}, {id: 3, name: "c"}]')
  await db.ops({ op: 'snapshot', name: 'default', target: 's1' })
  await q('insert users {id: 4, name: "d"}')
  await q('users | get 2 | delete')
  await q('users | get 3 | update {name: "C"}')
  await q('insert notes {id: 1, text: "n"}')
  const diff = await call('/api/v1/t/default/diff?from=s1')
  t.equal(diff.status, 200)
  t.match(diff.body, {
    from: { name: 's1', lsn: Number }, to: { name: 'head', lsn: Number }, truncated: false,
    collections: {
      users: { added: [{ id: 4, name: 'd' }], removed: [{ id: 2, name: 'b' }], changed: [{ key: 3, before: { name: 'c' }, after: { name: 'C' } }] },
      notes: { added: [{ id: 1 }], removed: [], changed: [] },
    },
  })
  const one = await call('/api/v1/t/default/diff?from=s1&to=head&collection=notes')
  t.same(Object.keys(one.body.collections), ['notes'])
  const limited = await call('/api/v1/t/default/diff?from=s1&limit=1')
  t.equal(limited.body.truncated, true)
  await db.ops({ op: 'snapshot', name: 'default', target: 's2' })
  const same = await call('/api/v1/t/default/diff?from=s2&to=s2')
  t.same(same.body.collections.users, { added: [], removed: [], changed: [] })

  for (const [path, status, code] of [
    ['/api/v1/t/default/diff', 400, 'bad_request'],
    ['/api/v1/t/default/diff?from=s1&limit=x', 400, 'bad_request'],
    ['/api/v1/t/default/diff?from=s1&limit=0', 400, 'bad_request'],
    ['/api/v1/t/default/diff?from=s1&collection=nope', 400, 'unknown_collection'],
    ['/api/v1/t/default/diff?from=nope', 404, 'unknown_snapshot'],
    ['/api/v1/t/default/diff?from=s1&to=nope', 404, 'unknown_snapshot'],
    ['/api/v1/t/nobody/diff?from=s1', 404, 'unknown_tenant'],
  ] as const) {
    const res = await call(path)
    t.equal(res.status, status, path)
    t.match(res.body, { code, error: String }, path)
  }
})

t.test('unknown tenants are 404 and suspended ones 423 on every read route', async (t) => {
  const { db, call } = await setup(t)
  for (const route of ['collections', 'schema', 'snapshots', 'diff?from=x', 'tail']) {
    const res = await call(`/api/v1/t/nobody/${route}`)
    t.equal(res.status, 404, route)
    t.same(res.body, { error: "no tenant named 'nobody'", code: 'unknown_tenant', conflict: false }, route)
  }
  await db.ops({ op: 'create', name: 'sleepy' })
  await db.ops({ op: 'snapshot', name: 'sleepy', target: 's' })
  await db.ops({ op: 'suspend', name: 'sleepy' })
  for (const route of ['collections', 'diff?from=s', 'tail']) {
    const res = await call(`/api/v1/t/sleepy/${route}`)
    t.equal(res.status, 423, route)
    t.match(res.body, { code: 'tenant_suspended', error: /suspended/ }, route)
  }
  t.equal((await call('/api/v1/t/sleepy/schema')).status, 200, 'status routes still answer')
  t.equal((await call('/api/v1/t/sleepy/snapshots')).status, 200)
  t.match((await call('/api/v1/tenants')).body.tenants, [{ name: 'default' }, { name: 'sleepy', state: 'suspended' }])
})

t.test('poll tail: after is exclusive, collection filter, limit, bad parameters', async (t) => {
  const { db, call } = await setup(t)
  const q = (text: string) => db.tenant('default').query(text)
  const a = (await q('insert users {id: 1, name: "a"}')).lsn as number
  const b = (await q('insert notes {id: 1, text: "n"}')).lsn as number
  const c = (await q('insert users {id: 2, name: "b"}')).lsn as number
  const all = await call('/api/v1/t/default/tail')
  t.equal(all.status, 200)
  t.same(all.body.events.map((e: { lsn: number }) => e.lsn).filter((l: number) => l >= a), [a, b, c])
  t.equal(all.body.head_lsn, c)
  t.equal(all.body.last_lsn, c)
  t.match(all.body.events.at(-1), { lsn: c, at: String, tenant: 'default', changes: [{ collection: 'users', op: 'insert', key: 2, row: { id: 2, name: 'b' } }] })
  const after = await call(`/api/v1/t/default/tail?after=${a}`)
  t.same(after.body.events.map((e: { lsn: number }) => e.lsn), [b, c], 'after is exclusive')
  const users = await call(`/api/v1/t/default/tail?after=${a - 1}&collection=users`)
  t.same(users.body.events.map((e: { lsn: number }) => e.lsn), [a, c], 'only the collection')
  const limited = await call(`/api/v1/t/default/tail?after=${a - 1}&limit=1`)
  t.same(limited.body.events.map((e: { lsn: number }) => e.lsn), [a])
  t.equal(limited.body.last_lsn, a, 'resume from last_lsn')
  t.same((await call(`/api/v1/t/default/tail?after=${c}`)).body, { events: [], last_lsn: c, head_lsn: c }, 'caught up: an empty page')
  for (const bad of ['after=x', 'after=-1', 'limit=0', 'wait_ms=soon', `after=${c + 100}`, 'after=1&after=2']) {
    const res = await call(`/api/v1/t/default/tail?${bad}`)
    t.equal(res.status, 400, bad)
    t.equal(res.body.code, 'bad_request', bad)
  }
})

t.test('poll tail: wait_ms wakes on a commit', async (t) => {
  const { db, call } = await setup(t)
  const head = (await db.tenant('default').query('insert users {id: 1, name: "a"}')).lsn as number
  // The longest wait_ms: answering before it ran out shows the commit woke the poll.
  const started = Date.now()
  const waiting = call(`/api/v1/t/default/tail?after=${head}&wait_ms=${tail_wait_ms_max}`)
  await pollUntil(() => internalsOf(db).notifier.waiting === 1, 'the long poll to wait')
  const next = (await db.tenant('default').query('insert users {id: 2, name: "b"}')).lsn as number
  const res = await waiting
  t.equal(res.status, 200)
  t.same(res.body.events.map((e: { lsn: number }) => e.lsn), [next])
  t.ok(Date.now() - started < tail_wait_ms_max, 'answered with the commit, before wait_ms ran out')
  const idle = Date.now()
  t.same((await call(`/api/v1/t/default/tail?after=${next}&wait_ms=300`)).body.events, [])
  t.ok(Date.now() - idle >= 250, 'waited out wait_ms with nothing to report')
})

t.test('poll tail: 410 lsn_expired once retention deleted the history', async (t) => {
  const { db, call } = await setup(t, { tailRetentionBytes: 1, checkpointWalBytes: 1 })
  const early = (await db.tenant('default').query('insert users {id: 1, name: "a"}')).lsn as number
  const blob = Buffer.alloc(1000 * 1024, 1)
  for (let i = 0; i < 40 && internalsOf(db).engine.stats().oldest_lsn <= early; i += 1) {
    await internalsOf(db).engine.commit([{ op: 'put', tree: 'filler', key: Buffer.from([i]), value: blob }], encodeCommitHeader('default', new Date(), 'catalog'))
  }
  const { oldest_lsn } = internalsOf(db).engine.stats()
  t.ok(oldest_lsn > early)
  const res = await call('/api/v1/t/default/tail?after=0')
  t.equal(res.status, 410)
  t.same(res.body, { error: res.body.error, code: 'lsn_expired', conflict: false, oldest_lsn })
  t.equal((await call(`/api/v1/t/default/tail?after=${oldest_lsn - 1}`)).status, 200)
})

t.test('a read that meets a damaged page is 500 storage_error, and health detail reports it', async (t) => {
  const dir = tempDir(t)
  const { db: first, schemaFile } = await openDatabase(t, schema, dir)
  const rows = Array.from({ length: 300 }, (_, i) => `{id: ${i}, name: "user-${String(i).padStart(4, '0')}"}`)
  await first.tenant('default').query(`insert users [${rows.join(', ')}]`)
  await first.close()
  flipByteInLeaf(join(dir, 'db', 'pages'), 'user-0150')
  const db = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const res = await call('/api/v1/t/default/query', { json: { query: 'users | where name == "user-0150"' } })
  t.equal(res.status, 500)
  t.same(res.body, { error: 'a read met a damaged page; see /api/v1/health/detail', code: 'storage_error', conflict: false })
  t.notMatch(JSON.stringify(res.body), /user-0150/, 'no data from the damaged page')
  const detail = await call('/api/v1/health/detail')
  t.ok(detail.body.corruption.total >= 1, 'health detail counts it')
  t.match(detail.body.corruption.reports, [{ id: String, count: Number }])
  t.ok((await call('/api/v1/stats')).body.corruption_count >= 1)
})


