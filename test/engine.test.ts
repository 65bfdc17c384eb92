// The engine through the binding: TypeScript reaches the Rust storage core.
import { openSync, readSync, readdirSync, readFileSync, realpathSync, writeSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Engine, EngineError } from '../src/engine/index.js'
import { package_root } from '../src/package-root.js'
import { flipPayloadByte, walFrames } from './helpers/damage-wal.js'
import { tempDir } from './helpers/temp-dir.js'

const bytes = (text: string) => Buffer.from(text)

t.test('open creates the directory; stats describe it; close releases it', async (t) => {
  const dir = join(tempDir(t), 'db')
  const engine = await Engine.open(dir)
  const stats = engine.stats()
  t.equal(stats.db_dir, realpathSync(dir))
  t.equal(stats.page_count, 2, 'a new directory holds its two meta slots')
  t.equal(stats.current_lsn, 0)
  t.equal(stats.corruption_total, 0)
  t.equal(stats.fsync.buckets.at(-1)?.le_micros, null, 'the last fsync bucket is unbounded')
  await engine.close()
  await engine.close() // idempotent
  t.throws(() => engine.stats(), { name: 'EngineError', code: 'closed' })
  await t.rejects(engine.commit([{ op: 'put', tree: 't', key: bytes('k'), value: bytes('v') }]), { code: 'closed' })
})

t.test('headLsn and oldestLsn say what stats() says, without its file sizes', async (t) => {
  const engine = await Engine.open(tempDir(t))
  t.equal(engine.headLsn(), 0)
  t.equal(engine.oldestLsn(), engine.stats().oldest_lsn)
  const lsn = await engine.commit([{ op: 'put', tree: 't', key: bytes('k'), value: bytes('v') }])
  t.equal(engine.headLsn(), lsn, 'the head is the commit just settled')
  t.equal(engine.headLsn(), engine.stats().current_lsn)
  t.equal(engine.oldestLsn(), 1, 'the WAL holds the first commit')
  t.equal(engine.oldestLsn(), engine.stats().oldest_lsn)
  await engine.close()
  t.throws(() => engine.headLsn(), { name: 'EngineError', code: 'closed' })
  t.throws(() => engine.oldestLsn(), { name: 'EngineError', code: 'closed' })
})

t.test('lock: a second opener gets a typed, clear error', async (t) => {
  const dir = tempDir(t)
  const first = await Engine.open(dir)
  const err = await Engine.open(dir).then(() => undefined, (e: unknown) => e)
  t.type(err, EngineError)
  t.equal((err as EngineError).code, 'locked')
  t.match((err as EngineError).message, /is locked by another process/)
  await first.close()
  await (await Engine.open(dir)).close()
})

t.test('read-only: a commit and a checkpoint fail with read_only, reads work, nothing is written', async (t) => {
  const dir = tempDir(t)
  const writer = await Engine.open(dir)
  const lsn = await writer.commit([{ op: 'put', tree: 't', key: bytes('k'), value: bytes('v1') }])
  await writer.close()
  const reader = await Engine.open(dir, { readOnly: true })
  t.same(reader.snapshot().get('t', bytes('k')), bytes('v1'), 'a read-only engine reads')
  await t.rejects(reader.commit([{ op: 'put', tree: 't', key: bytes('k'), value: bytes('v2') }]), { name: 'EngineError', code: 'read_only' })
  await t.rejects(reader.checkpoint(), { name: 'EngineError', code: 'read_only' })
  t.equal(reader.headLsn(), lsn, 'the refused commit took no LSN')
  await reader.close()
  const reopened = await Engine.open(dir)
  t.teardown(() => reopened.close())
  t.equal(reopened.headLsn(), lsn, 'nothing was written while read-only')
  t.same(reopened.snapshot().get('t', bytes('k')), bytes('v1'))
})

t.test('follower: a local commit fails with not_primary until the engine is made primary', async (t) => {
  const engine = await Engine.open(tempDir(t), { follower: true })
  t.teardown(() => engine.close())
  await t.rejects(engine.commit([{ op: 'put', tree: 't', key: bytes('k'), value: bytes('local') }]), { name: 'EngineError', code: 'not_primary' })
  t.equal(engine.headLsn(), 0, 'the refused commit took no LSN')
  t.equal(engine.snapshot().get('t', bytes('k')), null)
  engine.setFollower(false)
  t.equal(await engine.commit([{ op: 'put', tree: 't', key: bytes('k'), value: bytes('local') }]), 1, 'a primary commits')
  t.same(engine.snapshot().get('t', bytes('k')), bytes('local'))
})

t.test('an unusable path is an io error, not a crash', async (t) => {
  const err = await Engine.open('/proc/version/not-a-dir').then(() => undefined, (e: unknown) => e)
  t.type(err, EngineError)
  t.equal((err as EngineError).code, 'io')
})

t.test('getMany: many keys of one tree in one call, in their order, as get reads each', async (t) => {
  const engine = await Engine.open(tempDir(t))
  t.teardown(() => engine.close())
  // Small values, values in overflow pages, an empty one, across a tree of several levels.
  const value = (i: number) => (i % 97 === 0 ? Buffer.alloc(5000 + i, i % 251) : i % 89 === 0 ? Buffer.alloc(0) : bytes(`value ${i}`))
  const key = (i: number) => bytes(`key ${String(i).padStart(6, '0')}`)
  await engine.commit(Array.from({ length: 5000 }, (_, i) => ({ op: 'put' as const, tree: 't', key: key(i * 2), value: value(i * 2) })))
  const snapshot = engine.snapshot()
  // Present, absent (odd), repeated, out of order, and one key far past the end.
  const asked = [7, 0, 9998, 194, 3, 194, 5000, 12345, 178].map(key)
  t.same(snapshot.getMany('t', asked).map((v) => v?.toString('hex') ?? null), asked.map((k) => snapshot.get('t', k)?.toString('hex') ?? null))
  t.same(snapshot.getMany('t', []), [])
  t.same(snapshot.getMany('absent', asked), asked.map(() => null), 'a tree that does not exist holds nothing')
  t.same(snapshot.getMany('t', [bytes('')]), [null])
})

t.test('commits are atomic, durable, and visible in later snapshots only', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  // Held across the commit's await: leased (a plain snapshot() is for synchronous reads).
  const before = engine.lease()
  const lsn = await engine.commit([
    { op: 'put', tree: 'users', key: bytes('a'), value: bytes('1') },
    { op: 'put', tree: 'users', key: bytes('b'), value: Buffer.alloc(5000, 7) },
    { op: 'put', tree: 'users', key: bytes('c'), value: bytes('3') },
  ])
  t.equal(lsn, 1)
  t.equal(before.get('users', bytes('a')), null, 'an older snapshot is unchanged')
  engine.unlease(before)
  t.throws(() => before.get('users', bytes('a')), /released/, 'an unleased old version can no longer be read')
  const after = engine.snapshot()
  t.equal(after.lsn, 1)
  t.same(after.get('users', bytes('a')), bytes('1'))
  t.equal(after.get('users', bytes('b'))?.length, 5000, 'a large value through overflow pages')
  t.same(after.trees(), [{ name: 'users', count: 3, lsn: 1 }])

  await t.rejects(engine.commit([
    { op: 'put', tree: 'users', key: bytes('d'), value: bytes('4') },
    { op: 'put', tree: 'users', key: Buffer.alloc(2000), value: bytes('too long a key') },
  ]), { code: 'invalid_argument' })
  t.equal(engine.snapshot().get('users', bytes('d')), null, 'a refused commit leaves nothing behind')

  await engine.close()
  const reopened = await Engine.open(dir)
  t.same(reopened.snapshot().get('users', bytes('c')), bytes('3'), 'durable across reopen')
  t.equal(reopened.snapshot().lsn, 1)
  t.equal(await reopened.commit([{ op: 'delete', tree: 'users', key: bytes('a') }]), 2, 'LSNs keep growing')
  await reopened.close()
})

t.test('range batches in both directions and full scans', async (t) => {
  const engine = await Engine.open(tempDir(t))
  const keys = Array.from({ length: 2500 }, (_, i) => `k${String(i).padStart(5, '0')}`)
  await engine.commit(keys.map((k) => ({ op: 'put' as const, tree: 'kv', key: bytes(k), value: bytes(`v-${k}`) })))
  const snap = engine.snapshot()
  const page = snap.range('kv', { lower: bytes('k00010'), lowerInclusive: false, limit: 3 })
  t.same(page.map(([k]) => k.toString()), ['k00011', 'k00012', 'k00013'])
  const back = snap.range('kv', { upper: bytes('k00010'), upperInclusive: true, reverse: true, limit: 2 })
  t.same(back.map(([k, v]) => [k.toString(), v.toString()]), [['k00010', 'v-k00010'], ['k00009', 'v-k00009']])
  t.same([...snap.scan('kv', {}, 97)].map(([k]) => k.toString()), keys, 'a scan crosses in batches and sees all')
  t.same([...snap.scan('kv', { reverse: true }, 333)].map(([k]) => k.toString()), [...keys].reverse())
  await engine.close()
})

t.test('a range read in place gives the entries range gives, in a buffer reused and grown', async (t) => {
  const engine = await Engine.open(tempDir(t))
  // 600 values of 1 KiB: a batch of them is more than the shared buffer's first 256 KiB.
  const keys = Array.from({ length: 600 }, (_, i) => `k${String(i).padStart(5, '0')}`)
  await engine.commit(keys.map((k, i) => ({ op: 'put' as const, tree: 'kv', key: bytes(k), value: Buffer.alloc(i % 2 === 0 ? 1024 : 3, k) })))
  const snap = engine.snapshot()
  const inPlace = (options: Parameters<typeof snap.range>[1]) => {
    const { buf, count, at } = snap.rangeAt('kv', options)
    return Array.from({ length: count }, (_, i) => [buf.subarray(at[4 * i], at[4 * i + 1]).toString(), buf.subarray(at[4 * i + 2], at[4 * i + 3]).toString()])
  }
  const views = (options: Parameters<typeof snap.range>[1]) => snap.range('kv', options).map(([k, v]) => [k.toString(), v.toString()])
  const asked = [
    { limit: 10 },
    { lower: bytes('k00010'), lowerInclusive: false, limit: 3 },
    { upper: bytes('k00300'), reverse: true, limit: 7 },
    { limit: 600 },
    { lower: bytes('k00590'), limit: 50 },
    { lower: bytes('z'), limit: 5 },
    { limit: 2 },
  ]
  for (const options of asked) t.same(inPlace(options), views(options), JSON.stringify(options))
  t.equal(inPlace({ limit: 600 }).length, 600, 'the whole tree in one batch of more than the buffer held')
  t.same(inPlace({ lower: bytes('z'), limit: 5 }), [], 'an empty batch')
  await engine.close()
})

t.test('pins are O(1) named versions that survive restart; copies fork trees', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  await engine.commit([{ op: 'put', tree: 'a', key: bytes('x'), value: bytes('old') }])
  await engine.commit([{ op: 'pin', name: 'before' }, { op: 'copy_tree', from: 'a', to: 'fork' }])
  await engine.commit([{ op: 'put', tree: 'a', key: bytes('x'), value: bytes('new') }])
  await engine.checkpoint()
  await engine.close()

  const again = await Engine.open(dir)
  const head = again.snapshot()
  t.same(head.get('a', bytes('x')), bytes('new'))
  t.same(head.get('fork', bytes('x')), bytes('old'), 'the fork kept its own version')
  t.same(head.pins().map((p) => p.name), ['before'])
  t.same(head.pin('before')?.get('a', bytes('x')), bytes('old'), 'the pin reads the old version')
  t.equal(head.pin('missing'), null)
  await t.rejects(again.commit([{ op: 'pin', name: 'before' }]), { code: 'invalid_argument' })
  await again.close()
})

t.test('group commit: concurrent commits share fsyncs', async (t) => {
  const engine = await Engine.open(tempDir(t))
  const lsns = await Promise.all(Array.from({ length: 64 }, (_, i) =>
    engine.commit([{ op: 'put', tree: 'g', key: bytes(`k${i}`), value: bytes('v') }])))
  t.same([...lsns].sort((a, b) => a - b), Array.from({ length: 64 }, (_, i) => i + 1), 'every commit got its own LSN')
  const { fsync } = engine.stats()
  t.ok(fsync.count < 64, `64 commits took ${fsync.count} fsyncs`)
  t.equal(fsync.buckets.reduce((sum, b) => sum + b.count, 0), fsync.count)
  await engine.close()
})

t.test('frames: committed transactions after an LSN, decoded, in order', async (t) => {
  const engine = await Engine.open(tempDir(t))
  await engine.commit([{ op: 'put', tree: 't', key: bytes('a'), value: bytes('1') }], bytes('{"tenant":"x"}'))
  await engine.commit([{ op: 'delete', tree: 't', key: bytes('a') }, { op: 'compact_tree', tree: 't' }])
  const frames = await engine.readFrames(0, 10, 1 << 20)
  t.same(frames.map((f) => f.lsn), [1, 2])
  t.equal(Buffer.from(frames[0]!.commit.meta).toString(), '{"tenant":"x"}')
  t.match(frames[1]!.commit.ops, [{ op: 'delete', tree: 't' }, { op: 'compact_tree', tree: 't' }])
  t.same((await engine.readFrames(1, 10, 1 << 20)).map((f) => f.lsn), [2], 'after is exclusive')
  t.same(await engine.readFrames(2, 10, 1 << 20), [])
  await engine.close()
})

t.test('corruption: a damaged page is a typed error naming it, and a persisted report', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  await engine.commit([{ op: 'put', tree: 't', key: bytes('k'), value: bytes('precious') }])
  await engine.close() // checkpoints: the row now lives in a page
  const file = join(dir, 'pages')
  const fd = openSync(file, 'r+')
  const slot = Buffer.alloc(4096)
  let page = 2
  for (; ; page += 1) { // find the leaf holding the row (page type 3 at offset 24)
    readSync(fd, slot, 0, 4096, page * 4096)
    if (slot[24] === 3 && slot.includes(bytes('precious'))) break
  }
  const at = slot.indexOf(bytes('precious'))
  writeSync(fd, Buffer.from([slot[at]! ^ 0x20]), 0, 1, page * 4096 + at)
  closeSync(fd)

  const damaged = await Engine.open(dir)
  const err = (() => { try { damaged.snapshot().get('t', bytes('k')); return undefined } catch (e) { return e } })()
  t.type(err, EngineError)
  // Fields set by the binding (native/src/error.rs), not read out of the message.
  t.match(err, { code: 'corrupted', page, file: 'pages' })
  const stats = damaged.stats()
  t.equal(stats.corruption_total, 1)
  t.match(stats.corruption[0], { id: `page:${page}`, file: 'pages', page, kind: 'checksum', count: 1 })
  t.ok((await damaged.verify()).problems.some((p) => p.includes(`page ${page}`)))
  await damaged.close()
  const reopened = await Engine.open(dir)
  t.ok(reopened.stats().corruption_total >= 1, 'the report survives a restart')
  await reopened.close()
})

t.test('corruption: a damaged WAL frame is a typed error naming its segment, with no page', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  for (const k of ['a', 'b', 'c']) await engine.commit([{ op: 'put', tree: 't', key: bytes(k), value: bytes('v') }])
  await engine.close() // checkpoints: recovery no longer needs the frames, so the open goes on
  const frame = walFrames(dir).find((f) => f.lsn === 2)
  if (frame === undefined) throw new Error('no WAL frame of LSN 2')
  flipPayloadByte(dir, frame)

  const damaged = await Engine.open(dir)
  const err = await damaged.readFrames(0, 10, 1 << 20).then(() => undefined, (e: unknown) => e)
  t.type(err, EngineError)
  t.match(err, { code: 'corrupted', file: `wal/${frame.segment}`, page: undefined })
  await damaged.close()
})

t.test('errors: no code handling engine errors reads their message to decide what failed', async (t) => {
  // The binding's errors carry their fields (native/src/error.rs); a message is for
  // people. Checked in src/engine/ and in every file that names EngineError.
  const reads = /\.message\s*\.\s*(startsWith|endsWith|includes|match|search|split)\b|\.(exec|test)\(\s*[\w.]*message\b/
  const found: string[] = []
  let checked = 0
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8')
        if (!text.includes('EngineError') && !path.includes(join('src', 'engine'))) continue
        checked += 1
        text.split('\n').forEach((line, i) => { if (reads.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`) })
      }
    }
  }
  walk(join(package_root, 'src'))
  t.ok(checked >= 10, `${checked} files checked`)
  t.same(found, [], 'lines that parse an error message')
  // The check itself finds such a line.
  t.ok(reads.test("if (err.message.startsWith('WAL')) {}") && reads.test('/^page (\\d+)/.exec(err.message)'))
})

t.test('diff: added, removed and changed entries between two snapshots', async (t) => {
  const engine = await Engine.open(tempDir(t))
  await engine.commit(['a', 'b', 'c'].map((k) => ({ op: 'put' as const, tree: 't', key: bytes(k), value: bytes(`${k}1`) })))
  const before = engine.lease()
  await engine.commit([
    { op: 'delete', tree: 't', key: bytes('a') },
    { op: 'put', tree: 't', key: bytes('b'), value: bytes('b2') },
    { op: 'put', tree: 't', key: bytes('d'), value: Buffer.alloc(3000, 1) },
  ])
  const { entries, truncated } = before.diff(engine.snapshot(), 't', 10)
  t.equal(truncated, false)
  t.same(entries.map((e) => [e.key.toString(), e.before?.toString() ?? null, e.after === null ? null : e.after.length]),
    [['a', 'a1', null], ['b', 'b1', 2], ['d', null, 3000]])
  t.equal(before.diff(engine.snapshot(), 't', 2).truncated, true)
  engine.unlease(before)
  await engine.close()
})
