// The caches of the embedded query path (docs/performance.md, P3), each tried where it
// could serve something stale: the engine's shared head snapshot across commits, the
// tenant records remembered per snapshot across suspend, resume, delete and fork, and
// the parsed statements across parameters of other types and a changed schema.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { Engine } from '../src/engine/index.js'
import { StatementCache } from '../src/query/index.js'
import { read_buffer_bytes, statement_cache_text_chars_max } from '../src/limits.js'
import { requireTenant } from '../src/tenants/index.js'
import { openDatabase } from './helpers/database.js'
import { tempDir } from './helpers/temp-dir.js'
import { internalsOf } from '../src/database/internals.js'

const bytes = (text: string) => Buffer.from(text)
const rejected = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

t.test('head snapshot reuse: a settled commit is in the next snapshot, never a stale head', async (t) => {
  const engine = await Engine.open(tempDir(t))
  t.teardown(() => engine.close())
  // Held across the commit: leased (engine.snapshot() is for reads within one turn).
  const first = engine.lease()
  t.equal(engine.snapshot(), first, 'without a commit the head is shared')
  const lsn = await engine.commit([{ op: 'put', tree: 'kv', key: bytes('a'), value: bytes('1') }])
  const after = engine.snapshot()
  t.not(after, first, 'the commit replaced the shared head')
  t.equal(after.lsn, lsn)
  t.same(after.get('kv', bytes('a')), bytes('1'), 'the writer reads its write as soon as its commit resolves')
  t.equal(first.get('kv', bytes('a')), null, 'the old head is unchanged')
  engine.unlease(first)
  t.throws(() => first.get('kv', bytes('a')), /released/, 'once unleased, a replaced head is let go')

  // A commit in flight: whoever awaits it sees it, whatever was read meanwhile.
  const pending = engine.commit([{ op: 'put', tree: 'kv', key: bytes('b'), value: bytes('2') }])
  engine.snapshot()
  await pending
  t.same(engine.snapshot().get('kv', bytes('b')), bytes('2'))

  // A refused commit changes nothing, and the head still moves on with the next one.
  await t.rejects(engine.commit([{ op: 'put', tree: 'kv', key: Buffer.alloc(2000), value: bytes('x') }]), { code: 'invalid_argument' })
  t.equal(engine.snapshot().lsn, lsn + 1)
  await engine.commit([{ op: 'delete', tree: 'kv', key: bytes('a') }])
  t.equal(engine.snapshot().get('kv', bytes('a')), null)
})

t.test('head snapshot reuse: queries read their own writes, write after write', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: int }')
  const kv = db.tenant('default')
  for (let i = 0; i < 20; i += 1) {
    await kv.query('upsert kv {k: "a", v: $v}', { v: i })
    t.same((await kv.query('kv | get "a" | select v')).rows, [[i]], `write ${i} is read back`)
  }
  await kv.query('kv | get "a" | delete')
  t.same((await kv.query('kv | get "a"')).rows, [], 'a delete is read back')
  // Concurrent writers of distinct rows: every one is read back once all settled.
  await Promise.all(Array.from({ length: 16 }, (_, i) => kv.query('insert kv {k: $k, v: $i}', { k: `c${i}`, i })))
  t.same((await kv.query('kv | where k >= "c" | count')).rows, [[16]])
})

t.test('a value larger than the read buffer is read whole (the exact-size second read)', async (t) => {
  const engine = await Engine.open(tempDir(t))
  t.teardown(() => engine.close())
  const large = Buffer.alloc(read_buffer_bytes * 3 + 17, 9)
  const edge = Buffer.alloc(read_buffer_bytes, 4)
  await engine.commit([
    { op: 'put', tree: 'kv', key: bytes('large'), value: large },
    { op: 'put', tree: 'kv', key: bytes('edge'), value: edge },
    { op: 'put', tree: 'kv', key: bytes('empty'), value: Buffer.alloc(0) },
  ])
  const snapshot = engine.snapshot()
  t.same(snapshot.get('kv', bytes('large')), large)
  t.same(snapshot.get('kv', bytes('edge')), edge)
  t.same(snapshot.get('kv', bytes('empty')), Buffer.alloc(0), 'empty is not absent')
  const first = snapshot.get('kv', bytes('edge'))
  snapshot.get('kv', bytes('large'))
  t.same(first, edge, 'a value returned earlier is not overwritten by the next read')
})

t.test('tenant records per snapshot: suspend, resume, delete and fork are seen by the next query', async (t) => {
  const { db } = await openDatabase(t, 'collection notes { id: int primary, text: string }')
  const main = db.tenant('default')
  await main.query('insert notes {id: 1, text: "one"}')
  await db.ops({ op: 'suspend', name: 'default' })
  t.match(await rejected(main.query('notes')), { code: 'tenant_suspended' }, 'suspended at once')
  await db.ops({ op: 'resume', name: 'default' })
  t.same((await main.query('notes | count')).rows, [[1]], 'resumed at once')

  const fork = db.tenant('copy')
  t.match(await rejected(fork.query('notes')), { code: 'unknown_tenant' }, 'an absent tenant is remembered as absent…')
  await db.ops({ op: 'fork', name: 'default', target: 'copy' })
  t.same((await fork.query('notes | count')).rows, [[1]], '…only until the fork commits')

  await db.ops({ op: 'delete', name: 'copy' })
  t.match(await rejected(fork.query('notes')), { code: 'unknown_tenant' }, 'deleted at once')
  await db.ops({ op: 'create', name: 'copy' })
  t.same((await fork.query('notes | count')).rows, [[0]], 'created again, empty')
})

t.test('tenant records per snapshot are frozen: a caller cannot change what others read', async (t) => {
  const { db } = await openDatabase(t, 'collection notes { id: int primary }')
  const record = requireTenant(internalsOf(db).engine.snapshot(), 'default')
  t.ok(Object.isFrozen(record))
  t.throws(() => { (record as { state: string }).state = 'suspended' }, TypeError)
  t.equal(requireTenant(internalsOf(db).engine.snapshot(), 'default').state, 'active')
})

t.test('statement cache: the check runs on every query, with that query\'s parameters', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: int }')
  const kv = db.tenant('default')
  await kv.query('insert kv {k: "a", v: 1}')
  t.same((await kv.query('kv | get $k | select v', { k: 'a' })).rows, [[1]])
  t.match(await rejected(kv.query('kv | get $k | select v', { k: 5 })), { diagnostic: { code: 'type_error' } }, 'a cached text with a parameter of the wrong type is refused')
  t.match(await rejected(kv.query('kv | take $n', { n: -1 })), { diagnostic: { code: 'type_error' } })
  t.same((await kv.query('kv | take $n', { n: 1 })).rows.length, 1, 'the same text with a valid value runs')
  for (let i = 0; i < 3; i += 1) t.match(await rejected(kv.query('kv | wher k')), { diagnostic: { code: 'syntax_error' } }, `a syntax error is reported every time (${i})`)
})

t.test('statement cache: after a schema change (reopen) the same text is checked against the new schema', async (t) => {
  const dir = tempDir(t)
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, 'collection kv { k: string primary, v: int }')
  const before = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  await before.tenant('default').query('insert kv {k: "a", v: 1}')
  t.same((await before.tenant('default').query('kv | select v')).rows, [[1]])
  await before.close()
  writeFileSync(schemaFile, 'collection kv { k: string primary, w: int was v }')
  const after = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => after.close())
  t.match(await rejected(after.tenant('default').query('kv | select v')), { diagnostic: { code: 'unknown_field' } }, 'the old field is unknown')
  t.same((await after.tenant('default').query('kv | select w')).rows, [[1]], 'the migrated field is read')
})

t.test('statement cache: entries are frozen, bounded, and least recently used goes first', async (t) => {
  const cache = new StatementCache(2)
  const a = cache.statement('kv | take 1')
  t.ok(Object.isFrozen(a), 'a shared tree cannot be changed by one query for the next')
  t.throws(() => { (a as { kind: string }).kind = 'insert' }, TypeError)
  t.equal(cache.statement('kv | take 1'), a, 'the same text is parsed once')
  cache.statement('kv | take 2')
  cache.statement('kv | take 1') // now the most recent
  cache.statement('kv | take 3')
  t.equal(cache.size, 2)
  t.equal(cache.statement('kv | take 1'), a, 'the most recently used entry stayed')
  const long = `kv | where k == "${'x'.repeat(statement_cache_text_chars_max)}"`
  t.not(cache.statement(long), cache.statement(long), 'a text over the length limit is not kept')
  const refused = (() => {
    try {
      cache.statement('kv | wher')
      return null
    } catch (err) {
      return err as { diagnostic?: { code?: string } }
    }
  })()
  t.equal(refused?.diagnostic?.code, 'syntax_error', 'a syntax error is thrown, not cached')
})
