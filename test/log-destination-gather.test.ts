// The log destination gathers lines before it writes (src/cli/log-destination.ts,
// docs/operations.md "Logs"): a line waits until log_write_bytes are queued or its
// delay passed, so a busy server makes few writes; a clean stop (end) writes what is
// gathered at once; nothing is lost or reordered.
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { LogDestination } from '../src/cli/log-destination.js'
import { log_write_bytes } from '../src/limits.js'
import { pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'

function open(t: Test): { fd: number; read: () => string } {
  const file = join(tempDir(t), 'log')
  const fd = openSync(file, 'w')
  t.teardown(() => closeSync(fd))
  return { fd, read: () => readFileSync(file, 'utf8') }
}

const line = (i: number) => `${JSON.stringify({ level: 30, msg: `line ${i}` })}\n`

t.test('log destination: small lines wait for their delay; end writes them at once', async (t) => {
  const { fd, read } = open(t)
  // A delay no test run reaches: only end() can write these.
  const log = new LogDestination(fd, { writeDelayMs: 3_600_000 })
  for (let i = 0; i < 10; i += 1) log.write(line(i))
  await sleep(50)
  t.equal(read(), '', 'nothing written while gathering')
  const started = Date.now()
  await log.end(60_000)
  t.ok(Date.now() - started < 30_000, 'end did not wait for the delay')
  t.equal(read(), Array.from({ length: 10 }, (_, i) => line(i)).join(''), 'every line, in order')
})

t.test('log destination: log_write_bytes queued are written without waiting', async (t) => {
  const { fd, read } = open(t)
  const log = new LogDestination(fd, { writeDelayMs: 3_600_000 })
  let n = 0
  let bytes = 0
  while (bytes < log_write_bytes) {
    log.write(line(n))
    bytes += line(n).length
    n += 1
  }
  await pollUntil(() => read().length >= log_write_bytes, 'the full batch to be written')
  t.equal(read(), Array.from({ length: n }, (_, i) => line(i)).join(''), 'the batch, whole and in order')
  log.write(line(n))
  await sleep(50)
  t.equal(read().split('\n').length - 1, n, 'the next small line waits again')
  await log.end(60_000)
  t.equal(read().split('\n').length - 1, n + 1)
})

t.test('log destination: with the default delay, lines reach the output by themselves', async (t) => {
  const { fd, read } = open(t)
  const log = new LogDestination(fd)
  log.write(line(1))
  await pollUntil(() => read() === line(1), 'the line to be written')
  t.pass('written without end')
  await log.end(60_000)
})
