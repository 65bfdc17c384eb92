// R14 (docs/operations.md, "Logs"): logging must never block serving. With stdout on a
// full file system, the server used to hang after ~1 600 requests (pino's flushSync
// retried ENOSPC without end, the main thread in Atomics.wait). Now lines are dropped
// and counted, the failure is said once on stderr, and the lost count is logged once
// output works again.
import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { LogDestination } from '../src/cli/log-destination.js'
import { cli_path } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'
import { fillDisk, mountTmpfs } from './helpers/tmpfs.js'

const hang_guard_ms = 60_000

t.test('lines written to a full disk are dropped and counted, said once, and the loss is logged after space returns', async (t) => {
  const disk = mountTmpfs(t, 0.25)
  const file = join(disk, 'log')
  const fd = openSync(file, 'w')
  t.teardown(() => closeSync(fd))
  const filler = join(disk, 'filler')
  fillDisk(filler)
  const failures: string[] = []
  const log = new LogDestination(fd, { onFailure: (message) => failures.push(message) })

  for (let i = 0; i < 5000; i += 1) log.write(`${JSON.stringify({ level: 30, msg: `line ${i}` })}\n`)
  // Each write returns at once; the asynchronous writer meets ENOSPC and drops.
  await waitFor(() => failures.length > 0, 'the failure is reported')
  for (let i = 0; i < 5000; i += 1) log.write(`${JSON.stringify({ level: 30, msg: `later ${i}` })}\n`)
  // The queued lines go out (and are lost) with the next attempt, a second later.
  await log.end(hang_guard_ms)
  t.equal(failures.length, 1, 'the failure is said once')
  t.match(failures[0], /ENOSPC/, 'naming the cause')
  const dropped = log.droppedLines
  t.ok(dropped >= 5000, `lines were dropped and counted (${dropped})`)

  rmSync(filler)
  log.write(`${JSON.stringify({ level: 30, msg: 'after space returned' })}\n`)
  await waitFor(() => readFileSync(file, 'utf8').includes('after space returned'), 'output resumes')
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { msg: string })
  const notice = lines.find((line) => /log lines were lost/.test(line.msg))
  t.ok(notice, 'the loss is recorded in the log itself')
  const written = lines.filter((line) => /^(line|later) /.test(line.msg)).length
  t.equal(Number(/^(\d+) /.exec(notice?.msg ?? '')?.[1]), 10_000 - written, 'the notice counts exactly the lines that did not make it out')
  t.equal(failures.length, 1, 'still said only once')
})

t.test('a queue over its bound drops new lines instead of growing', async (t) => {
  const dir = tempDir(t)
  const fd = openSync(join(dir, 'log'), 'w')
  t.teardown(() => closeSync(fd))
  const failures: string[] = []
  const log = new LogDestination(fd, { queueBytesMax: 1000, onFailure: (message) => failures.push(message) })
  const line = `${'x'.repeat(99)}\n`
  for (let i = 0; i < 100; i += 1) log.write(line)
  t.ok(log.droppedLines >= 80, `most of 10 000 bytes queued at once over a 1 000-byte bound are dropped (${log.droppedLines})`)
  t.match(failures[0], /not keeping up/)
  await log.end(hang_guard_ms)
})

t.test('a server whose stdout sits on a full disk keeps answering and stops cleanly', async (t) => {
  const disk = mountTmpfs(t, 0.25)
  const data = tempDir(t)
  const out = openSync(join(disk, 'stdout'), 'w')
  t.teardown(() => closeSync(out))
  fillDisk(join(disk, 'filler'))
  const port = await freePort()
  const token = 'log-full-disk-token-0123456789'
  const child = spawn(process.execPath, [cli_path, 'serve', '--dir', data, '--port', String(port), '--token', token], {
    env: { ...process.env, SERVICE_TOKEN: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', out, 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk })
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })

  const base = `http://127.0.0.1:${port}/api/v1`
  await waitFor(async () => (await fetch(`${base}/health`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null))?.ok === true, 'the server answers')
  // Far more requests than the ~1 600 after which the old logger hung, each logged.
  const started = Date.now()
  let ok = 0
  const worker = async () => {
    while (ok < 3000) {
      ok += 1
      const res = await fetch(`${base}/health`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(hang_guard_ms) })
      if (res.status !== 200) throw new Error(`status ${res.status}`)
      await res.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  t.ok(Date.now() - started < hang_guard_ms, '3 000 requests answered with stdout on a full disk')
  t.equal(stderr.match(/log output failed/g)?.length, 1, `the failure is said once on stderr:\n${stderr}`)
  child.kill('SIGTERM')
  t.equal(await withTimeout(exited, hang_guard_ms), 0, 'SIGTERM still stops it cleanly')
})

async function waitFor(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + hang_guard_ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> {
  return Promise.race([promise, new Promise<'timed out'>((resolve) => setTimeout(() => resolve('timed out'), ms).unref())])
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}
