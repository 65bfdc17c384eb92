// Commit completions reach JavaScript through one threadsafe function per engine
// (native/src/completions.rs), a group commit's results in one call. What that could
// break: a promise settled twice, never, or with another commit's LSN or error; a
// close that resolves before the commits queued ahead of it; an idle open engine
// keeping the process alive, or a pending commit not keeping it alive; the commits of
// one turn reaching the storage core apart (src/engine/commit-queue.ts), or out of order.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { Engine, EngineError } from '../src/engine/index.js'
import { tempDir } from './helpers/temp-dir.js'
import { hang_guard_ms } from './helpers/poll.js'

const bytes = (text: string) => Buffer.from(text)
const put = (key: string) => [{ op: 'put' as const, tree: 'c', key: bytes(key), value: bytes('v') }]
/** Refused by the storage core when applied (a key over the limit): fails on the sync thread. */
const refused = () => [{ op: 'put' as const, tree: 'c', key: Buffer.alloc(2000), value: bytes('v') }]

t.test('concurrent commits each settle once, in call order, with their own LSN or error', async (t) => {
  const engine = await Engine.open(tempDir(t))
  const outcomes: Array<number | string> = []
  const settled: number[] = []
  const unseen: number[] = []
  const waves = 4
  const per_wave = 300
  for (let wave = 0; wave < waves; wave++) {
    const commits = Array.from({ length: per_wave }, (_, i) => {
      const n = wave * per_wave + i
      const promise = n % 7 === 3 ? engine.commit(refused()) : engine.commit(put(`k${n}`))
      return promise.then(
        (lsn) => {
          settled.push(n)
          // The head snapshot is fresh by the time a commit's awaiter runs.
          const head = engine.snapshot()
          if (head.lsn < lsn || head.get('c', bytes(`k${n}`)) === null) unseen.push(n)
          outcomes[n] = lsn
        },
        (err: unknown) => {
          settled.push(n)
          t.type(err, EngineError)
          outcomes[n] = (err as EngineError).code
        },
      )
    })
    await Promise.all(commits)
  }
  const total = waves * per_wave
  t.equal(settled.length, total, 'every commit settled exactly once')
  t.equal(new Set(settled).size, total)
  t.same(unseen, [], 'each awaiter reads its own write')
  const lsns = outcomes.filter((o): o is number => typeof o === 'number')
  const refusals = outcomes.filter((o) => typeof o === 'string')
  t.same(new Set(refusals), new Set(['invalid_argument']), 'a refused commit rejects with its own error')
  t.equal(refusals.length, outcomes.filter((_, n) => n % 7 === 3).length)
  t.same(lsns, Array.from({ length: lsns.length }, (_, i) => i + 1),
    'the accepted commits got LSNs 1, 2, 3, ... in the order of the calls')
  t.equal(engine.stats().current_lsn, lsns.length)
  t.ok(engine.stats().fsync.count < lsns.length, 'the commits shared fsyncs')
  await engine.close()
})

t.test('close settles every commit queued before it; one racing it commits or rejects closed', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  const results: Array<number | string | undefined> = Array.from({ length: 100 }, () => undefined)
  const track = (i: number, promise: Promise<number>) => promise.then(
    (lsn) => { results[i] = lsn },
    (err: unknown) => { results[i] = (err as EngineError).code },
  )
  for (let i = 0; i < 99; i++) void track(i, engine.commit(put(`q${i}`)))
  const closing = engine.close()
  void track(99, engine.commit(put('racing')))
  await closing
  t.same(results.slice(0, 99), Array.from({ length: 99 }, (_, i) => i + 1),
    'the commits queued before close were durable and settled before close resolved')
  t.ok(results[99] === 100 || results[99] === 'closed', `the racing commit settled too (${results[99]})`)
  await t.rejects(engine.commit(put('late')), { name: 'EngineError', code: 'closed', message: /closed/ })

  const reopened = await Engine.open(dir)
  t.same(reopened.snapshot().get('c', bytes('q98')), bytes('v'), 'durable across reopen')
  t.equal(reopened.snapshot().lsn, results[99] === 100 ? 100 : 99)
  await reopened.close()
})

t.test('the commits of one turn of the event loop reach the storage core together: the first at once, the rest in one batch, in call order', async (t) => {
  const engine = await Engine.open(tempDir(t))
  t.teardown(() => engine.close())
  await engine.commit(put('first'))
  for (const count of [2, 64, 2000]) {
    const before = engine.stats()
    // A malformed payload among them fails alone (checked as the core takes the batch).
    const commits = Array.from({ length: count }, (_, i) => i === 1 ? engine.commitPayload(bytes('not a commit')) : engine.commit(put(`turn ${count} ${i}`)))
    const outcomes = await Promise.all(commits.map((c) => c.then((lsn) => lsn, (err: EngineError) => err.code)))
    t.equal(outcomes[1], 'invalid_argument', `${count}: the malformed commit rejects with its own error`)
    const lsns = outcomes.filter((o) => o !== outcomes[1])
    t.same(lsns, Array.from({ length: count - 1 }, (_, i) => before.current_lsn + 1 + i), `${count}: LSNs in the order of the calls`)
    // The first went to its fsync at once (none was in flight), alone unless the rest came in time.
    const fsyncs = engine.stats().fsync.count - before.fsync.count
    t.ok(fsyncs <= 2, `${count} commits made in one turn took ${fsyncs} fsyncs: the first's and one for the rest`)
  }
})

t.test('commits made before a switch to follower mode are applied before it', async (t) => {
  const engine = await Engine.open(tempDir(t))
  t.teardown(() => engine.close())
  // The first goes to the core at once; the second waits for the end of the turn.
  const before = [engine.commit(put('before the switch')), engine.commit(put('queued before the switch'))]
  engine.setFollower(true)
  const after = t.rejects(engine.commit(put('after the switch')), { name: 'EngineError', code: 'not_primary' })
  t.same(await Promise.all(before), [1, 2], 'the commits made before the switch, in the same turn, are a primary\'s')
  await after
})

// A child process imports the TypeScript engine through tap's loader.
const ts_loader = process.execArgv.filter((arg) => arg.includes('@tapjs/typescript'))
const engine_module = fileURLToPath(new URL('../src/engine/index.js', import.meta.url))

/** Runs `body` in a child process; a child still running after the hang guard is killed (and fails the test: code null). */
function runChild(dir: string, body: string): Promise<{ code: number | null; out: string }> {
  const script = `import { Engine } from ${JSON.stringify(engine_module)}
const engine = await Engine.open(${JSON.stringify(dir)})
${body}`
  const child = spawn(process.execPath, [...ts_loader, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), hang_guard_ms)
  return new Promise((resolve) => child.on('exit', (code) => {
    clearTimeout(timer)
    resolve({ code, out })
  }))
}

t.test('an idle open engine does not keep the process alive', async (t) => {
  const dir = join(tempDir(t), 'idle')
  const { code, out } = await runChild(dir, `
console.log('lsn', await engine.commit([{ op: 'put', tree: 'c', key: Buffer.from('k'), value: Buffer.from('v') }]))
console.log('idle')`)
  t.equal(out, 'lsn 1\nidle\n')
  t.equal(code, 0, 'the process exited on its own, with the engine still open')
})

t.test('a pending commit keeps the process alive until it settles', async (t) => {
  const dir = join(tempDir(t), 'pending')
  // Not awaited: only the pending commit can keep the event loop alive.
  const { code, out } = await runChild(dir, `
for (let i = 0; i < 20; i++) {
  engine.commit([{ op: 'put', tree: 'c', key: Buffer.from('k' + i), value: Buffer.from('v') }])
    .then((lsn) => console.log('settled', lsn))
}`)
  t.equal(code, 0)
  t.equal(out.split('\n').filter((l) => l.startsWith('settled')).length, 20, 'every commit settled before exit')
})
