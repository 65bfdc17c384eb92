// Lazy migration as a unit of work: one atomic engine commit per tenant (the LSN moves
// by exactly 1), done once (not again on the next query, by another runner, or after a
// restart with the same schema), per tenant (one blocked tenant does not block another),
// from each tenant's own applied schema, and over more rows than one read batch.
import t from 'tap'
import { Engine } from '../src/engine/index.js'
import { QueryError } from '../src/query/index.js'
import { phase, schemaOf, type Row } from './migration-fixtures/harness.js'
import { openRunner } from './helpers/query-runner.js'
import { tempDir } from './helpers/temp-dir.js'

const v1 = `collection users { id: int primary, name: string, mail: string, legacy: string, age: int, index (legacy) }
  collection notes { id: int primary, text: string }`
const v2 = `collection users {
    id: int primary, full_name: string was name, email: string unique was mail, age: float,
    status: string = "new", dropped legacy, index (age),
  }
  collection memos was notes { id: int primary, text: string }
  collection tags { id: int primary, label: string unique }`

const users = (n: number, from = 1): Row[] =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, name: `user ${from + i}`, mail: `u${from + i}@x.io`, legacy: 'old', age: 20 + ((from + i) % 50) }))

t.test('the migration is one atomic commit: the LSN advances by exactly 1, and that frame holds every step', async (t) => {
  const dir = tempDir(t)
  await phase(dir, v1, async (db) => {
    await db.run('a', 'insert users $rows', { rows: users(30) })
    await db.run('a', 'insert notes {id: 1, text: "hi"}')
  })
  const { fingerprint } = await schemaOf(v2)
  await phase(dir, v2, async (db) => {
    const before = db.lsn()
    const result = await db.run('a', 'users | where age == 25')
    t.equal(db.lsn(), before + 1, 'touching the tenant committed exactly once')
    t.same(result.plan, { collection: 'users', access: 'index', index: 'age' })
    t.same(result.rows.map((r) => r[0]), [5])
    t.equal(result.lsn, undefined, 'the read itself committed nothing')

    const frames = await db.engine.readFrames(before, 10, 1 << 24)
    t.equal(frames.length, 1, 'one frame')
    const frame = frames[0]
    if (frame === undefined) return
    t.equal(frame.lsn, before + 1)
    t.match(JSON.parse(Buffer.from(frame.commit.meta).toString('utf8')), { tenant: 'a', at: /^\d{4}-\d\d-\d\dT/ })
    const ops = frame.commit.ops
    const trees = new Set(ops.map((op) => ('tree' in op ? op.tree : `${op.op} ${'from' in op ? op.from : ''}`)))
    t.ok(ops.some((op) => op.op === 'copy_tree' && op.from === 't/a/r/notes' && op.to === 't/a/r/memos'), 'the collection rename')
    t.ok(ops.some((op) => op.op === 'drop_tree' && op.tree === 't/a/x/users/legacy'), 'the dropped index')
    t.ok(trees.has('t/a/r/users') && trees.has('t/a/x/users/email') && trees.has('t/a/x/users/age'), 'rows rewritten and indexes built')
    t.ok(ops.some((op) => op.op === 'put' && op.tree === 't/a/meta' && Buffer.from(op.key).toString() === 'fingerprint' && Buffer.from(op.value).toString() === fingerprint), 'and the new fingerprint, in the same commit')

    t.same(db.storedRows('a', 'users')[4], { id: 5, full_name: 'user 5', email: 'u5@x.io', age: 25, status: 'new' })
    t.same(await db.rows('a', 'memos'), [{ id: 1, text: 'hi' }])
    t.same(await db.rows('a', 'tags'), [])
    t.equal(db.meta('a').fingerprint, fingerprint)
  })
})

t.test('the migration happens once: not on the next query, nor by a new runner, nor after a restart', async (t) => {
  const dir = tempDir(t)
  await phase(dir, v1, async (db) => { await db.run('a', 'insert users $rows', { rows: users(5) }) })
  const migrated = await phase(dir, v2, async (db) => {
    const before = db.lsn()
    await db.run('a', 'users | count')
    t.equal(db.lsn(), before + 1, 'first touch: one commit')
    await db.run('a', 'users | count')
    await db.run('a', 'users | get 1')
    t.equal(db.lsn(), before + 1, 'later reads commit nothing')
    const write = await db.run('a', 'insert tags {id: 1, label: "x"}')
    t.equal(write.lsn, before + 2, 'a write is its own single commit, with no migration before it')
    t.equal(db.lsn(), before + 2)
    const other = openRunner(db.engine, await schemaOf(v2)).runner
    await other.run('a', 'users | count')
    t.equal(db.lsn(), before + 2, 'a second runner with the same schema finds the tenant migrated')
    return db.storedRows('a', 'users')
  })
  await phase(dir, v2, async (db) => {
    const before = db.lsn()
    t.same(await db.rows('a', 'users | count'), [{ count: 5 }])
    await db.migrator.ensure('a')
    t.equal(db.lsn(), before, 'a restart with the same schema does not migrate again')
    t.same(db.storedRows('a', 'users'), migrated, 'and leaves the rows as the migration wrote them')
  })
})

t.test('concurrent first queries of one tenant migrate it once', async (t) => {
  const dir = tempDir(t)
  await phase(dir, v1, async (db) => { await db.run('a', 'insert users $rows', { rows: users(50) }) })
  await phase(dir, v2, async (db) => {
    const before = db.lsn()
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0 ? db.run('a', 'users | count') : db.run('a', 'users | where email == $e', { e: `u${i}@x.io` })))
    t.equal(db.lsn(), before + 1, 'one migration commit for eight racing queries')
    t.same(results[0]?.rows, [[50]])
    t.same(results[1]?.rows.map((r) => r[0]), [1])
    t.same(results[1]?.plan, { collection: 'users', access: 'index', index: 'email' })
  })
})

t.test('a migration over more rows than one read batch rewrites and indexes every row', async (t) => {
  const dir = tempDir(t)
  const n = 2500
  await phase(dir, v1, async (db) => {
    for (let from = 1; from <= n; from += 500) await db.run('a', 'insert users $rows', { rows: users(500, from) })
  })
  await phase(dir, v2, async (db) => {
    const before = db.lsn()
    t.same(await db.rows('a', 'users | count'), [{ count: n }])
    t.equal(db.lsn(), before + 1)
    const stored = db.storedRows('a', 'users')
    t.equal(stored.length, n)
    t.same(stored, users(n).map((u) => ({ id: u.id, full_name: u.name, email: u.mail, age: u.age, status: 'new' })), 'every row renamed, dropped, converted, filled')
    t.equal(db.indexEntries('a', 'users', 'email').length, n, 'the unique index holds every row')
    t.equal(db.indexEntries('a', 'users', 'age').length, n)
    const last = await db.run('a', 'users | where email == "u2500@x.io"')
    t.same(last.rows.map((r) => r[0]), [2500])
    t.equal(last.stats.rows_examined, 1)
    const ages = await db.run('a', 'users | where age == 20 | count')
    t.same(ages.rows, [[50]])
  })
})

t.test('two tenants migrate independently: a blocked tenant does not block a clean one', async (t) => {
  const dir = tempDir(t)
  const dupes = users(3).map((u) => ({ ...u, mail: 'same@x.io' }))
  await phase(dir, v1, async (db) => {
    await db.run('a', 'insert users $rows', { rows: dupes })
    await db.run('b', 'insert users $rows', { rows: users(4) })
  })
  const reason = `collection 'users': unique index 'email' cannot be built: more than one row has email = string "same@x.io"`
  await phase(dir, v2, async (db) => {
    const before = db.lsn()
    t.equal(db.migrator.blockedReason('a'), undefined, 'nothing is known before the tenant is touched')
    const blocked = await db.error('a', 'users')
    t.equal(blocked.code, 'migration_blocked')
    t.equal(blocked.message, reason)
    t.equal(db.migrator.blockedReason('a'), reason, 'blockedReason(a) is the reason the query gave')
    t.equal(db.lsn(), before, "a's blocked migration committed nothing")

    t.same(await db.rows('b', 'users | select id, email'), users(4).map((u) => ({ id: u.id, email: u.mail })), 'b migrates and answers')
    t.equal(db.migrator.blockedReason('b'), undefined)
    t.equal(db.lsn(), before + 1, "b's migration: one commit")
    const dup = await db.error('b', 'insert users {id: 9, full_name: "x", email: "u1@x.io", age: 1}')
    t.equal(dup.code, 'constraint_violation', "b's new unique index is in force")
    t.equal(db.indexEntries('b', 'users', 'email').length, 4, "b's index holds only b's rows")

    t.same(await db.rows('c', 'users'), [], 'a tenant never touched before starts at v2 directly')
    t.equal(db.migrator.blockedReason('c'), undefined)

    await t.rejects(db.migrator.ensure('a'), new QueryError('migration_blocked', reason), 'ensure(a) rejects with the same error')
    t.equal((await db.error('a', 'insert users {id: 9, full_name: "x", email: "y", age: 1}')).code, 'migration_blocked', 'a still blocked after b migrated')
    t.same(db.trees('a'), ['t/a/meta', 't/a/r/users', 't/a/x/users/legacy'], "a's trees are v1's")
    t.same(db.storedRows('a', 'users'), dupes, "a's rows are v1's")
  })
  // The next process starts without the in-memory verdict: it is worked out again.
  await phase(dir, v2, async (db) => {
    t.equal(db.migrator.blockedReason('a'), undefined)
    t.equal((await db.error('a', 'users | count')).message, reason, 'still blocked after a restart, with the same reason')
    t.same(await db.rows('b', 'users | count'), [{ count: 4 }])
  })
  await phase(dir, v1, async (db) => {
    t.same(await db.rows('a', 'users'), dupes, 'with v1 again, a reads every row back')
  })
})

t.test('a tenant that skipped a schema version migrates straight from its own applied schema', async (t) => {
  const dir = tempDir(t)
  const v3 = `collection users {
      id: int primary, full_name: string was name, email: string unique was mail, age: float,
      status: string = "new", dropped legacy, index (age), nick: string?,
    }
    collection memos was notes { id: int primary, text: string }
    collection tags { id: int primary, label: string unique }`
  await phase(dir, v1, async (db) => {
    await db.run('a', 'insert users $rows', { rows: users(2) })
    await db.run('b', 'insert users $rows', { rows: users(2) })
  })
  await phase(dir, v2, async (db) => { await db.run('a', 'users | count') }) // only a moves to v2
  await phase(dir, v3, async (db) => {
    const before = db.lsn()
    const expected = users(2).map((u) => ({ id: u.id, full_name: u.name, email: u.mail, age: u.age, status: 'new', nick: null }))
    t.same(await db.rows('a', 'users'), expected, 'a: v2 → v3')
    t.same(await db.rows('b', 'users'), expected, 'b: v1 → v3 in one migration')
    t.equal(db.lsn(), before + 2, 'one commit each')
    t.same(db.storedRows('a', 'users'), db.storedRows('b', 'users'))
  })
})

t.test('opening an engine commits nothing; only touching a tenant migrates it', async (t) => {
  const dir = tempDir(t)
  await phase(dir, v1, async (db) => { await db.run('a', 'insert users $rows', { rows: users(2) }) })
  const engine = await Engine.open(dir)
  t.teardown(() => engine.close())
  const lsn = engine.stats().current_lsn
  const { migrator } = openRunner(engine, await schemaOf(v2))
  t.equal(engine.stats().current_lsn, lsn, 'a new runner with a new schema writes nothing by itself')
  t.equal(migrator.blockedReason('a'), undefined)
  await migrator.ensure('a')
  t.equal(engine.stats().current_lsn, lsn + 1, 'ensure migrates with one commit')
  await migrator.ensure('a')
  t.equal(engine.stats().current_lsn, lsn + 1)
})
