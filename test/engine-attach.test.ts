// An engine shared with other threads and attached by them (docs/architecture.md,
// "Every core"; native/src/share.rs). The registry is the process's, so an engine can
// be attached on the same thread, which is how these checks reach it without a worker.
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { Engine } from '../src/engine/index.js'
import { tempDir } from './helpers/temp-dir.js'

const bytes = (text: string) => Buffer.from(text)
const put = (key: string, value: string) => [{ op: 'put' as const, tree: 't', key: bytes(key), value: bytes(value) }]

t.test('an attached engine reads every settled commit of the opener and writes nothing', async (t) => {
  const opener = await Engine.open(tempDir(t))
  const shared = opener.share()
  t.equal(opener.share(), shared, 'shared once')
  const attached = Engine.attach(shared)
  t.equal(attached.snapshot().get('t', bytes('k')), null)
  for (const value of ['1', '2', '3']) {
    await opener.commit(put('k', value))
    t.equal(attached.snapshot().get('t', bytes('k'))?.toString(), value, `commit ${value}: read by the next snapshot of the attached engine`)
  }
  t.equal(attached.headLsn(), opener.headLsn())
  await t.rejects(attached.commit(put('k', 'x')), { code: 'read_only' }, 'a commit is refused')
  await t.rejects(attached.checkpoint(), { code: 'read_only' }, 'a checkpoint is refused')
  await t.rejects(attached.compactSpace(), { code: 'read_only' }, 'a compaction is refused')
  t.throws(() => attached.setFollower(true), { code: 'read_only' }, 'a mode switch is refused')
  await attached.close()
  t.throws(() => attached.snapshot(), { code: 'closed' }, 'once detached, every call fails as on a closed engine')
  await t.rejects(attached.readFrames(0, 10, 1 << 20), { code: 'closed' })
  t.equal(opener.snapshot().get('t', bytes('k'))?.toString(), '3', 'the opener reads on: detaching closed nothing')
  await opener.commit(put('k', '4'))
  await opener.close()
  t.throws(() => Engine.attach(shared), { code: 'invalid_argument' }, 'a closed opener is shared no more')
})

t.test('a worker thread attaches and reads what the opener committed', async (t) => {
  const opener = await Engine.open(tempDir(t))
  t.teardown(() => opener.close())
  await opener.commit(put('k', 'from the opener'))
  const shared = opener.share()
  const code = `
    const { parentPort, workerData } = require('node:worker_threads')
    const { createRequire } = require('node:module')
    const native = createRequire(workerData.root + '/package.json')(workerData.root + '/native/index.cjs')
    const engine = native.attach(workerData.shared.id, () => {})
    const snapshot = engine.snapshot()
    const out = Buffer.alloc(64)
    const length = snapshot.getInto(Buffer.from('t'), Buffer.from('k'), out)
    engine.detach()
    parentPort.postMessage(out.subarray(0, length).toString())
  `
  const worker = new Worker(code, { eval: true, workerData: { shared, root: process.cwd() } })
  const [read] = await new Promise<unknown[]>((resolve, reject) => { worker.once('message', (m) => resolve([m])); worker.once('error', reject) })
  t.equal(read, 'from the opener', 'the same database, read from another thread')
})
