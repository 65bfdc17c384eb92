// A panic on the storage core's own sync thread (crates/storage/src/commit/group_commit.rs),
// where no entry point of the binding runs to catch it, is contained there
// (docs/architecture.md, "The binding"): the commits of its batch reject with
// `fail_stopped` when their write had not begun and `outcome_unknown` once it had, the
// engine stops writing (`failStopped()` naming the panic), reads go on, `close` fails
// the same way, and reopening the directory recovers. Without that containment the
// first commit's promise here never settles.
//
// The panics come from the test-only trigger (crates/storage/src/panics/test_panic.rs):
// TENANTDB_TEST_PANIC, read as the addon loads, so it is set before the engine is
// imported. Each sync-thread step it names panics the first time it is reached in this
// process (a file of its own: engine-panic.test.ts's `settle` would fire on the first
// delivery of these rejections).
import t from 'tap'
import { tempDir } from './helpers/temp-dir.js'

process.env.TENANTDB_TEST_PANIC = 'sync.apply,sync.write'
const { Engine } = await import('../src/engine/index.js')

const bytes = (text: string) => Buffer.from(text)
const put = (key: string, value: string) => ({ op: 'put' as const, tree: 't', key: bytes(key), value: bytes(value) })
const cause = (step: string) => `the storage core's sync thread panicked: a test panic \\(TENANTDB_TEST_PANIC\\) in ${step.replace('.', '\\.')}`
const stopped = (step: string) => ({ name: 'EngineError', code: 'fail_stopped', message: new RegExp(`stopped writing after a failure \\(${cause(step)}\\); this change was not written`) })

t.test('a panic on the sync thread rejects the commits of its batch; the engine stops writing; reopening recovers', async (t) => {
  const dir = tempDir(t)

  // The first commit applied in this process meets `sync.apply`: not written.
  const engine = await Engine.open(dir)
  await t.rejects(engine.commit([put('k', 'v1')]), stopped('sync.apply'))
  t.match(engine.failStopped(), new RegExp(`^${cause('sync.apply')}$`))
  await t.rejects(engine.commit([put('k', 'v2')]), stopped('sync.apply'), 'a later commit is refused')
  t.equal(engine.snapshot().get('t', bytes('k')), null, 'reads answer: nothing was written')
  t.equal(engine.headLsn(), 0)
  await t.rejects(engine.close(), stopped('sync.apply'), 'close skips its checkpoint and says why')

  // The first written batch meets `sync.write`, after its fsync and before it is
  // published: its commits' outcome is unknown.
  const reopened = await Engine.open(dir)
  t.equal(reopened.failStopped(), null, 'reopening recovers')
  t.equal(reopened.snapshot().get('t', bytes('k')), null, 'the commit that was not written is not there')
  const first = reopened.commit([put('k', 'v3')])
  const next = reopened.commit([put('l', 'v3')])
  await t.rejects(first, { name: 'EngineError', code: 'outcome_unknown', message: new RegExp(`^writing this commit failed \\(${cause('sync.write')}\\): it may or may not be durable`) })
  // The second shared the batch (outcome unknown) or came after it (not written).
  const second = await next.then(() => null, (err: { code: string }) => err.code)
  t.ok(second === 'outcome_unknown' || second === 'fail_stopped', `the second commit is rejected too (${second})`)
  t.match(reopened.failStopped(), new RegExp(`^${cause('sync.write')}$`))
  await t.rejects(reopened.commit([put('k', 'v4')]), stopped('sync.write'), 'a later commit is refused')
  t.equal(reopened.snapshot().get('t', bytes('k')), null, 'reads answer (the batch was never published)')
  await t.rejects(reopened.close(), stopped('sync.write'))

  const again = await Engine.open(dir)
  t.same(again.snapshot().get('t', bytes('k')), bytes('v3'), 'the commit of unknown outcome was durable')
  t.same(again.snapshot().get('t', bytes('l')), second === 'outcome_unknown' ? bytes('v3') : null, 'the second is there exactly when it shared the batch')
  const lsn = again.headLsn()
  t.equal(await again.commit([put('k', 'v5')]), lsn + 1, 'it writes again')
  await again.close()
})
