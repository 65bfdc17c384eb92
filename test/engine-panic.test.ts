// No panic crosses the binding (docs/architecture.md, "The binding"): a panic in the
// real engine, in an async task, a synchronous call, a snapshot read, the delivery of
// commit completions, a synchronous commit or an open, rejects that call with `internal`; the process lives
// on; the engine stops writing (`fail_stopped`, naming the panic) and reads go on;
// reopening the directory recovers. Without the binding's catch, the first of these
// panics aborts this process ("panic in a function that cannot unwind").
//
// The panics come from the test-only trigger (native/src/test_panic.rs):
// TENANTDB_TEST_PANIC, read as the addon loads, so it is set before the engine is
// imported. Each entry point it names panics the first time it is called in this
// process, so the tests run in this order and each takes its own directory.
import { join } from 'node:path'
import t from 'tap'
import { tempDir } from './helpers/temp-dir.js'

process.env.TENANTDB_TEST_PANIC = 'open,commit,settle,snapshot.range,checkpoint,commitSync'
const { Engine } = await import('../src/engine/index.js')
const { encodeCommit } = await import('../src/engine/commit-writer.js')

const bytes = (text: string) => Buffer.from(text)
const put = (key: string, value: string) => ({ op: 'put' as const, tree: 't', key: bytes(key), value: bytes(value) })
const internal = (entry: string) => ({
  name: 'EngineError',
  code: 'internal',
  message: new RegExp(`^internal error \\(a bug\\): the engine panicked in ${entry.replace('.', '\\.')}: a test panic \\(TENANTDB_TEST_PANIC\\) in .*; the engine stopped writing`),
})
const stopped = (entry: string) => ({ name: 'EngineError', code: 'fail_stopped', message: new RegExp(`stopped writing after a failure \\(a panic in ${entry.replace('.', '\\.')}: a test panic`) })

t.test('a panic while opening rejects the open with internal; the directory opens the next time', async (t) => {
  const dir = join(tempDir(t), 'db')
  await t.rejects(Engine.open(dir), { name: 'EngineError', code: 'internal', message: /panicked in open: a test panic .*; the directory was not opened$/ })
  const engine = await Engine.open(dir)
  t.equal(engine.failStopped(), null, 'the engine opened after it is not stopped')
  t.equal(engine.snapshot().get('t', bytes('k')), null, 'and reads')
  await engine.close()
})

t.test('a panic in a synchronous call (commit) throws internal; the engine stops writing, reads go on', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  t.equal(engine.failStopped(), null)
  await t.rejects(engine.commit([put('k', 'v1')]), internal('commit'))
  t.match(engine.failStopped(), /^a panic in commit: a test panic \(TENANTDB_TEST_PANIC\) in commit$/)
  await t.rejects(engine.commit([put('k', 'v2')]), stopped('commit'), 'a later commit is refused')
  await t.rejects(engine.checkpoint(), stopped('commit'), 'a checkpoint is refused')
  await t.rejects(engine.compactSpace(), stopped('commit'), 'compaction is refused')
  t.equal(engine.snapshot().get('t', bytes('k')), null, 'reads answer: nothing was written')
  t.equal(engine.headLsn(), 0)
  await t.rejects(engine.close(), stopped('commit'), 'close skips its checkpoint and says why')

  // (Its first commit would be the first delivered: the next test's panic.)
  const reopened = await Engine.open(dir)
  t.equal(reopened.failStopped(), null, 'reopening recovers')
  await reopened.close()
})

t.test('a panic delivering commit completions rejects those commits with internal (their outcome unknown)', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  await t.rejects(engine.commit([put('k', 'v1')]), internal('settle'))
  t.match(engine.failStopped(), /^a panic in settle: /)
  await t.rejects(engine.commit([put('k', 'v2')]), stopped('settle'))
  // The commit was durable before its completion was delivered: here it did take effect.
  t.same(engine.snapshot().get('t', bytes('k')), bytes('v1'), 'reads answer')
  await t.rejects(engine.close(), stopped('settle'))
  const reopened = await Engine.open(dir)
  t.same(reopened.snapshot().get('t', bytes('k')), bytes('v1'), 'the WAL kept it')
  t.equal(await reopened.commit([put('k', 'v3')]), 2, 'reopened, it writes again')
  await reopened.close()
})

t.test('a panic in a snapshot read throws internal; the engine stops writing, reads go on', async (t) => {
  const engine = await Engine.open(tempDir(t))
  await engine.commit([put('a', '1'), put('b', '2')])
  const snapshot = engine.snapshot()
  t.throws(() => snapshot.range('t', { limit: 10 }), internal('snapshot.range'))
  t.match(engine.failStopped(), /^a panic in snapshot\.range: /)
  t.same(snapshot.range('t', { limit: 10 }).map(([key]) => key.toString()), ['a', 'b'], 'the same read again answers')
  t.same(engine.snapshot().get('t', bytes('b')), bytes('2'))
  await t.rejects(engine.commit([put('c', '3')]), stopped('snapshot.range'))
  await t.rejects(engine.close(), stopped('snapshot.range'))
})

t.test('a panic in an async task (checkpoint) rejects it with internal; the process lives on; reopening recovers', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  const other = await Engine.open(tempDir(t))
  const lsn = await engine.commit([put('a', '1'), put('b', '2')])
  await t.rejects(engine.checkpoint(), internal('checkpoint'))
  t.equal(other.failStopped(), null, 'another engine of the process is not stopped')
  t.equal(await other.commit([put('k', 'v')]), 1, 'it commits')
  t.match(await other.checkpoint(), { checkpoint_lsn: 1 }, 'and checkpoints')
  await other.close()
  t.match(engine.failStopped(), /^a panic in checkpoint: a test panic \(TENANTDB_TEST_PANIC\) in checkpoint$/)
  await t.rejects(engine.commit([put('c', '3')]), stopped('checkpoint'), 'a later commit is refused')
  await t.rejects(engine.checkpoint(), stopped('checkpoint'), 'a later checkpoint is refused')
  await t.rejects(engine.compactSpace(), stopped('checkpoint'), 'compaction is refused')
  await t.rejects(engine.beginBackup(), stopped('checkpoint'), 'a backup is refused (the core refuses it once stopped)')
  t.same(engine.snapshot().range('t', { limit: 10 }).map(([key, value]) => [key.toString(), value.toString()]), [['a', '1'], ['b', '2']], 'reads answer')
  t.equal(engine.headLsn(), lsn)
  t.same((await engine.readFrames(0, 10, 1 << 20)).map((f) => f.lsn), [lsn], 'the change feed reads on')
  t.same((await engine.verify()).problems, [], 'verify reads on: the panic wrote nothing')
  t.equal(engine.stats().checkpoints.count, 0, 'no checkpoint ran')
  await t.rejects(engine.close(), stopped('checkpoint'), 'close skips its checkpoint and says why')

  const reopened = await Engine.open(dir)
  t.equal(reopened.failStopped(), null)
  t.same(reopened.snapshot().get('t', bytes('b')), bytes('2'), 'every commit is there')
  t.equal(await reopened.commit([put('c', '3')]), lsn + 1, 'it writes again')
  t.match(await reopened.checkpoint(), { checkpoint_lsn: lsn + 1 }, 'and checkpoints')
  await reopened.close()
})

t.test('a panic in a synchronous commit (commitSync) throws internal; the engine stops writing; reopening recovers', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  const payload = (key: string) => encodeCommit({ meta: new Uint8Array(0), ops: [put(key, 'v')] })
  let delivered = 0
  t.throws(() => engine.commitPayloadSync(payload('a'), () => { delivered += 1 }), internal('commitSync'))
  t.match(engine.failStopped(), /^a panic in commitSync: a test panic \(TENANTDB_TEST_PANIC\) in commitSync$/)
  t.throws(() => engine.commitPayloadSync(payload('b'), () => { delivered += 1 }), stopped('commitSync'), 'a later synchronous commit is refused')
  await t.rejects(engine.commit([put('c', 'v')]), stopped('commitSync'), 'and an asynchronous one')
  t.equal(engine.headLsn(), 0, 'nothing was written')
  await t.rejects(engine.close(), stopped('commitSync'))
  t.equal(delivered, 0, 'no refused commit was delivered')
  const reopened = await Engine.open(dir)
  t.equal(reopened.failStopped(), null)
  t.equal(reopened.commitPayloadSync(payload('a'), () => {}), 1, 'it commits on the caller\'s thread again')
  t.same(reopened.snapshot().get('t', bytes('a')), bytes('v'))
  await reopened.close()
})
