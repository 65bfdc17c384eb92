// Tenants through the embedding API: forks are isolated both ways, snapshots read a
// fixed past, suspend/resume/delete behave, compaction keeps every row and every pin.
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { openDatabase } from './helpers/database.js'
import { internalsOf } from '../src/database/internals.js'

const schema = 'collection notes { id: int primary, text: string, n: int = 0, index (n) }'

const rejected = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

t.test('fork: O(1), isolated in both directions, and records its parent', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert notes $rows', { rows: Array.from({ length: 50 }, (_, i) => ({ id: i, text: `n${i}` })) })
  t.same(await db.ops({ op: 'fork', name: 'default', target: 'staging' }), { ok: true, message: 'forked default into staging' })
  const staging = db.tenant('staging')
  await staging.query('notes | where id < 10 | delete')
  await main.query('insert notes {id: 100, text: "only in main"}')
  t.same((await main.query('notes | count')).rows, [[51]], 'the source does not see the fork\'s deletes')
  t.same((await staging.query('notes | count')).rows, [[40]], 'the fork does not see the source\'s inserts')
  t.same((await staging.query('notes | where n == 0 | count')).plan?.access, 'index', 'indexes were forked too')
  const record = db.tenants().tenants.find((r) => r.name === 'staging')
  t.match(record, { state: 'active', parent: { tenant: 'default', snapshot: null } })
  t.match(await rejected(db.ops({ op: 'fork', name: 'default', target: 'staging' })), { code: 'tenant_exists' })
  t.match(await rejected(db.ops({ op: 'fork', name: 'nope', target: 'x' })), { code: 'unknown_tenant' })
  t.match(await rejected(db.ops({ op: 'fork', name: 'default', target: 'Bad Name' })), { code: 'bad_request' })
})

t.test('snapshot: reads are pinned and unchanged by later writes; writes under a pin are refused', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert notes [{id: 1, text: "old"}, {id: 2, text: "two"}]')
  const made = await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  t.match(made.message, /^snapshot before of default at lsn \d+$/)
  await main.query('notes | where id == 1 | update {text: "new"}')
  await main.query('notes | where id == 2 | delete')
  t.same((await main.query('notes | select text')).rows, [['new']])
  t.same((await main.query('notes | select text', {}, { snapshot: 'before' })).rows, [['old'], ['two']])
  t.match(await rejected(main.query('insert notes {id: 3, text: "x"}', {}, { snapshot: 'before' })), { code: 'readonly_snapshot' })
  t.match(await rejected(main.query('notes', {}, { snapshot: 'missing' })), { code: 'unknown_snapshot' })
  t.match(await rejected(db.ops({ op: 'snapshot', name: 'default', target: 'before' })), { code: 'snapshot_exists' })
  const listed = main.snapshots().snapshots
  t.equal(listed.length, 1)
  t.match(listed[0], { name: 'before', lsn: Number(made.message.split(' ').at(-1)) })

  t.same(await db.ops({ op: 'fork', name: 'default@before', target: 'restored' }), { ok: true, message: 'forked default@before into restored' })
  t.same((await db.tenant('restored').query('notes | select text')).rows, [['old'], ['two']], 'a fork from a snapshot')
  t.match(db.tenants().tenants.find((r) => r.name === 'restored'), { parent: { tenant: 'default', snapshot: 'before' } })
})

t.test('snapshots and forks survive a restart', async (t) => {
  const { db, dir, schemaFile } = await openDatabase(t, schema)
  await db.tenant('default').query('insert notes {id: 1, text: "kept"}')
  await db.ops({ op: 'snapshot', name: 'default', target: 's1' })
  await db.ops({ op: 'fork', name: 'default', target: 'f1' })
  await db.tenant('default').query('notes | delete')
  await db.close()
  const again = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => again.close())
  t.same((await again.tenant('default').query('notes | select text', {}, { snapshot: 's1' })).rows, [['kept']])
  t.same((await again.tenant('f1').query('notes | select text')).rows, [['kept']])
  t.same((await again.tenant('default').query('notes | count')).rows, [[0]])
})

t.test('suspend, resume and delete', async (t) => {
  const { db } = await openDatabase(t, schema)
  t.same(await db.ops({ op: 'create', name: 'acme' }), { ok: true, message: 'created tenant acme' })
  t.match(await rejected(db.ops({ op: 'create', name: 'acme' })), { code: 'tenant_exists' })
  const acme = db.tenant('acme')
  await acme.query('insert notes {id: 1, text: "a"}')
  await db.ops({ op: 'snapshot', name: 'acme', target: 's' })
  t.same(await db.ops({ op: 'suspend', name: 'acme' }), { ok: true, message: 'suspended acme' })
  t.match(await rejected(acme.query('notes')), { code: 'tenant_suspended' })
  t.match(db.tenants().tenants.find((r) => r.name === 'acme'), { state: 'suspended' })
  await db.ops({ op: 'resume', name: 'acme' })
  t.same((await acme.query('notes | count')).rows, [[1]])
  t.same(await db.ops({ op: 'delete', name: 'acme' }), { ok: true, message: 'deleted acme and its 1 snapshot' })
  t.match(await rejected(acme.query('notes')), { code: 'unknown_tenant' })
  t.notOk(db.tenants().tenants.some((r) => r.name === 'acme'))
  t.notOk(internalsOf(db).engine.snapshot().trees().some((tree) => tree.name.startsWith('t/acme/')), 'its trees are gone')
  t.notOk(internalsOf(db).engine.snapshot().pins().some((p) => p.name.startsWith('acme@')), 'its pins are gone')
  t.match(await rejected(db.ops({ op: 'delete', name: 'default' })), { code: 'bad_request', message: /cannot be deleted/ })
  await db.ops({ op: 'create', name: 'acme' })
  t.same((await db.tenant('acme').query('notes | count')).rows, [[0]], 'a re-created tenant starts empty')
})

t.test('compact keeps every row and every pin readable, with the documented figures', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert notes $rows', { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, text: `row ${i}`, n: i % 10 })) })
  await db.ops({ op: 'snapshot', name: 'default', target: 'full' })
  await main.query('notes | where n != 0 | delete')
  const result = await db.ops({ op: 'compact', name: 'default' })
  t.match(result.message, /^compacted: 1 collections, 200 rows, \d+ pages in \d+ ms; page file \d+ → \d+ bytes$/)
  t.same((await main.query('notes | count')).rows, [[200]])
  t.same((await main.query('notes | where n == 0 | count')).rows, [[200]], 'the index was compacted too and still answers')
  t.same((await main.query('notes | count', {}, { snapshot: 'full' })).rows, [[2000]], 'the pin still reads everything')
  t.same((await internalsOf(db).engine.verify()).problems, [])
})

t.test('diff between a snapshot and head, or two snapshots', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert notes [{id: 1, text: "a"}, {id: 2, text: "b"}, {id: 3, text: "c"}]')
  await db.ops({ op: 'snapshot', name: 'default', target: 'v1' })
  await main.query('atomic { notes | where id == 1 | delete; notes | where id == 2 | update {text: "B"}; insert notes {id: 4, text: "d"} }')
  await db.ops({ op: 'snapshot', name: 'default', target: 'v2' })
  const diff = main.diff({ from: 'v1' })
  t.match(diff, {
    from: { name: 'v1' },
    to: { name: 'head' },
    collections: {
      notes: {
        added: [{ id: 4, text: 'd' }],
        removed: [{ id: 1, text: 'a' }],
        changed: [{ key: 2, before: { text: 'b' }, after: { text: 'B' } }],
      },
    },
    truncated: false,
  })
  t.same(main.diff({ from: 'v1', to: 'v2' }).collections, diff.collections)
  t.same(main.diff({ from: 'v2', to: 'v2' }).collections.notes, { added: [], removed: [], changed: [] })
  t.equal(main.diff({ from: 'v1', limit: 2 }).truncated, true)
})

t.test('db.run takes queries and tenant operations; schema and collections report status', async (t) => {
  const { db } = await openDatabase(t, schema)
  t.same(await db.run('tenant create acme'), { ok: true, message: 'created tenant acme' })
  t.match(await db.run('tenant snapshot acme as s0'), { ok: true, message: /^snapshot s0 of acme at lsn \d+$/ })
  t.match(await db.run('tenant fork acme@s0 as acme2'), { ok: true })
  t.match(await db.run('tenant snapshot acme as s1'), { ok: true })
  t.same(await db.run('tenant delete acme@s1'), { ok: true, message: 'dropped snapshot s1 of acme' })
  t.same(db.tenant('acme').snapshots().snapshots.map((s) => s.name), ['s0'], 'the tenant and its other snapshot stay')
  t.match(await db.run('insert notes {id: 1, text: "x"}', {}, { tenant: 'acme2' }), { columns: ['affected'] })
  const fresh = db.tenant('acme').schema()
  t.match(fresh, { fingerprint: db.schema.fingerprint, tenant: { pending: true, applied_fingerprint: null, blocked: null } }, 'schema never migrates')
  t.same(await db.tenant('acme').collections(), { tenant: 'acme', collections: [{ name: 'notes', rows: 0, indexes: ['n'] }] })
  t.match(db.tenant('acme').schema(), { tenant: { pending: false } }, 'collections migrated it')
  t.match(await db.run('collection x { id: int primary }').catch((e: unknown) => e), { name: 'EelError' })
  t.match(db.health(), { ok: true, tenant: 'default' })
  t.match(db.healthDetail(), { ok: true, fail_stopped: null, corruption: { total: 0, reports: [] }, wal: { current_lsn: Number }, fsync: { buckets: Array } })
  t.match(db.stats(), { tenants: 3, corruption_count: 0 })
})
