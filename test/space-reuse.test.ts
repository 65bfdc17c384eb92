// Space that stays bounded, through the embedding API on the real engine
// (docs/format.md, "Space map"; docs/operations.md, "Disk space"): churn in steady state
// does not grow the page file, a dropped snapshot's and a deleted tenant's page slots
// are reused, compaction shrinks the file, and verify recounts the books.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { openDatabase } from './helpers/database.js'
import { tempDir } from './helpers/temp-dir.js'
import { internalsOf } from '../src/database/internals.js'

const schema = 'collection kv { k: string primary, v: string }'
const value = (n: number) => `${n}`.padStart(150, 'v')
const rejected = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

/** Upserts `count` rows of keys `from..from+count` of `tenant`, 1 000 per commit. */
async function put(db: Database, tenant: string, from: number, count: number, salt = 0): Promise<void> {
  for (let at = from; at < from + count; at += 1000) {
    const rows = Array.from({ length: Math.min(1000, from + count - at) }, (_, i) => ({ k: `key${at + i}`, v: value(at + i + salt) }))
    await db.tenant(tenant).query('upsert kv $rows', { rows })
  }
}

async function settle(db: Database): Promise<void> {
  for (let i = 0; i < 3; i += 1) await internalsOf(db).engine.checkpoint()
}

async function verified(t: Test, db: Database, what: string): Promise<void> {
  const report = await internalsOf(db).engine.verify()
  t.same(report.problems, [], `${what}: verify recounts the books`)
}

t.test('steady churn: the page file levels off', async (t) => {
  const dir = tempDir(t)
  const { db } = await openDatabase(t, schema, dir)
  await put(db, 'default', 0, 20_000)
  await internalsOf(db).engine.checkpoint()
  let salt = 1
  let written = 0
  let released = 0
  const churn = async (rounds: number) => {
    for (let round = 0; round < rounds; round += 1) {
      const start = (round * 7919) % 19_000
      await put(db, 'default', start, 1000, salt++)
      if (round % 4 === 3) {
        const report = await internalsOf(db).engine.checkpoint()
        written += report.pages_written
        released += report.pages_released
      }
    }
  }
  await churn(40)
  const warmed = db.stats().pages
  const warmedTip = internalsOf(db).engine.stats().page_count
  written = 0
  released = 0
  await churn(80)
  const after = db.stats().pages
  t.ok(
    after.file_bytes <= warmed.file_bytes * 1.1,
    `the page file grew ${warmed.file_bytes} → ${after.file_bytes} bytes over the second phase (< 10 %)`,
  )
  // Checkpoints release the slots churn replaced and write the next versions into them
  // (docs/architecture.md, "Free space"): far more pages go out than the file grows by.
  t.ok(released > 0, `checkpoints released ${released} slots in the second phase`)
  const grown = Math.max(0, internalsOf(db).engine.stats().page_count - warmedTip)
  t.ok(written > 4 * grown, `${written} pages written, the file grew by ${grown} pages`)
  await verified(t, db, 'after churn')
})

t.test('dropping a snapshot: an op that says so, and its page slots come back', async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'acme' })
  await put(db, 'acme', 0, 10_000)
  await db.ops({ op: 'snapshot', name: 'acme', target: 'before' })
  await put(db, 'acme', 0, 10_000, 1)
  await settle(db)
  const held = db.stats().pages
  t.same(await db.ops({ op: 'delete', name: 'acme@before' }), { ok: true, message: 'dropped snapshot before of acme' })
  t.same(db.tenant('acme').snapshots().snapshots, [], 'it is gone from the list')
  t.match(await rejected(db.tenant('acme').query('kv | count', {}, { snapshot: 'before' })), { code: 'unknown_snapshot' })
  t.match(await rejected(db.ops({ op: 'delete', name: 'acme@before' })), { code: 'unknown_snapshot' }, 'a second drop')
  t.match(await rejected(db.ops({ op: 'delete', name: 'nobody@before' })), { code: 'unknown_tenant' })
  t.same((await db.tenant('acme').query('kv | count')).rows, [[10_000]], 'the tenant keeps its rows')
  await settle(db)
  const dropped = db.stats().pages
  t.ok(dropped.live < held.live * 0.7, `the snapshot's pages are no longer live: ${held.live} → ${dropped.live}`)
  // Rewriting everything again fits in what the snapshot gave back.
  await put(db, 'acme', 0, 10_000, 2)
  await settle(db)
  t.ok(db.stats().pages.file_bytes <= held.file_bytes * 1.05, 'the rewrite reused the slots')
  await verified(t, db, 'after the drop')
})

t.test('deleting a tenant: another tenant\'s rows reuse its page slots', async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'old' })
  await put(db, 'old', 0, 20_000)
  await settle(db)
  const before = db.stats().pages.file_bytes
  await db.ops({ op: 'delete', name: 'old' })
  await settle(db)
  await db.ops({ op: 'create', name: 'new' })
  await put(db, 'new', 0, 20_000)
  await settle(db)
  const after = db.stats().pages.file_bytes
  t.ok(after <= before * 1.1, `the file held steady: ${before} → ${after} bytes`)
  await verified(t, db, 'after the delete')
})

t.test('compact shrinks the page file and keeps every pin readable; the message gives the sizes', async (t) => {
  const dir = tempDir(t)
  const { db } = await openDatabase(t, schema, dir)
  await put(db, 'default', 0, 30_000)
  await internalsOf(db).engine.checkpoint()
  // Keep one row in ten: the live data is a tenth of the file.
  await db.tenant('default').query('kv | where k > "key" | delete')
  await put(db, 'default', 0, 3000)
  await db.ops({ op: 'snapshot', name: 'default', target: 'small' })
  const pinned = (await db.tenant('default').query('kv | select k', {}, { snapshot: 'small' })).rows
  const result = await db.ops({ op: 'compact', name: 'default' })
  const sizes = /page file (\d+) → (\d+) bytes$/.exec(result.message)
  t.ok(sizes, result.message)
  const [before, after] = [Number(sizes?.[1]), Number(sizes?.[2])]
  t.ok(after * 5 < before, `the page file shrank: ${before} → ${after} bytes`)
  t.equal(db.stats().pages.file_bytes, after)
  t.same((await db.tenant('default').query('kv | select k', {}, { snapshot: 'small' })).rows, pinned, 'the snapshot reads the same')
  await verified(t, db, 'after compaction')
})

t.test('an unknown operation is bad_request, not a silent no-op', async (t) => {
  const { db } = await openDatabase(t, schema)
  const request = { op: 'delete_snapshot', name: 'default@x' } as unknown as Parameters<Database['ops']>[0]
  t.match(await rejected(db.ops(request)), { code: 'bad_request', message: /unknown tenant operation "delete_snapshot"/ })
})

t.test('a fork from a snapshot racing its drop: one wins, the other is a conflict, never an error', async (t) => {
  const { db } = await openDatabase(t, schema)
  await put(db, 'default', 0, 100)
  let conflicts = 0
  for (let round = 0; round < 10; round += 1) {
    await db.ops({ op: 'snapshot', name: 'default', target: `s${round}` })
    // Either one is queued first: alternate.
    const fork = () => db.ops({ op: 'fork', name: `default@s${round}`, target: `f${round}` })
    const drop = () => db.ops({ op: 'delete', name: `default@s${round}` })
    const results = await Promise.allSettled(round % 2 === 0 ? [fork(), drop()] : [drop(), fork()])
    for (const r of results) {
      if (r.status === 'rejected') {
        t.match(r.reason, { code: /^(conflict|unknown_snapshot)$/ }, `round ${round}: a lost race is a conflict or an unknown snapshot`)
        if ((r.reason as { code: string }).code === 'conflict') conflicts += 1
      }
    }
    const forked = db.tenants().tenants.some((r) => r.name === `f${round}`)
    if (forked) t.same((await db.tenant(`f${round}`).query('kv | count')).rows, [[100]], `round ${round}: a fork that won is whole`)
  }
  t.ok(conflicts >= 5, `a fork queued after the drop lost with a conflict (${conflicts} in 10 races)`)
  await verified(t, db, 'after the races')
})

t.test('a directory reopened after churn keeps its books', async (t) => {
  const dir = tempDir(t)
  const schemaFile = join(dir, 'schema.eel')
  const { db } = await openDatabase(t, schema, dir)
  await put(db, 'default', 0, 5000)
  await put(db, 'default', 0, 5000, 1)
  await db.close()
  const again = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => again.close())
  const pages = again.stats().pages
  t.ok(pages.live > 0 && pages.file_bytes > 0, JSON.stringify(pages))
  t.same((await again.tenant('default').query('kv | count')).rows, [[5000]])
  await verified(t, again, 'reopened')
})
