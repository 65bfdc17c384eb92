// The client's change feed (src/client/tail.ts) is exactly-once across kill -9 of the
// server: `tenantdb serve` is SIGKILLed 100–900 ms after it acknowledged its first write
// of a cycle, and started again on the same directory and port, while three writers
// commit transactions over HTTP (test/helpers/tail-workload.ts) and three feeds follow
// tenant `default` for the whole run, reconnecting on their own: one over WebSocket
// (the `ws` package's class: Node 20 has no global one), one over long polls, and one
// over WebSocket following two collections (filtered by the client; `notes` is never
// written). A kill cuts WebSocket sessions, long-poll waits and commits; a transaction
// whose answer the kill swallowed is looked up on the next server. After the last
// cycle a server that is not killed serves a sentinel, every feed delivers up to it,
// and test/helpers/tail-check.ts checks what each delivered against the final state:
// every committed transaction exactly once, in LSN order, as written; nothing else.
//
//   TENANTDB_CLIENT_TAIL_KILL9_SEED       seed of the workload and the kill delays
//                                         (printed on failure)
//   TENANTDB_CLIENT_TAIL_KILL9_BUDGET_MS  time after which no new cycle starts (6 000;
//                                         90 000 under TENANTDB_SOAK=1)
//
// A cycle costs 1–3 s (mostly the server's start); the run fails if the budget left
// fewer than `cycles_min` cycles. The scheduler decides what the server was doing at
// the kill, so a seed replays the same choices and delays, not the same interleaving.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { Test } from 'tap'
import WebSocket from 'ws'
import type { TailOptions, WebSocketConstructor } from '../src/client/tail.js'
import { client_tail_schema } from './helpers/client-tail-server.js'
import { FeedConsumer, readFinal } from './helpers/client-tail-consumer.js'
import { rng } from './helpers/rng.js'
import { budget } from './helpers/soak.js'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { checkTail } from './helpers/tail-check.js'
import { TxnWriter, type Attempt } from './helpers/tail-workload.js'
import { tempDir } from './helpers/temp-dir.js'

const seed = Number(process.env.TENANTDB_CLIENT_TAIL_KILL9_SEED ?? 0x7a11_c119)
const replay = `TENANTDB_CLIENT_TAIL_KILL9_SEED=${seed}`
const budget_ms = budget('TENANTDB_CLIENT_TAIL_KILL9_BUDGET_MS', 6_000, 90_000)
const cycles_min = budget_ms >= 40_000 ? 10 : 3
const token = 'client-tail-kill9-0123456789abcdef'
const tenant = 'default'
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function query(url: string, text: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/v1/t/${tenant}/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: text, params }),
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

async function serve(t: Test, dir: string, schemaFile: string, port: number): Promise<{ server: CliProcess; port: number }> {
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', String(port), '--schema', schemaFile, '--token', token, '--checkpoint-wal-bytes', String(16 * 1024)], { LOG_LEVEL: 'warn' })
  const url = (await server.waitFor(/url: (http:\/\/\S+\/api\/v1)\n/))[1] as string
  return { server, port: Number(new URL(url).port) }
}

/** Asks the server whether the writer's unanswered transaction committed; false if it could not ask. */
async function resolvePending(writer: TxnWriter, url: string, problems: string[]): Promise<boolean> {
  const attempt = writer.pending
  if (attempt === undefined) return true
  let answer: Awaited<ReturnType<typeof query>>
  try {
    answer = await query(url, 'txns | where id == $id | select id', { id: attempt.txn })
  } catch {
    return false
  }
  if (answer.status !== 200) { problems.push(`writer ${writer.writer}: looking up ${attempt.txn}: ${answer.status} ${JSON.stringify(answer.body)}`); return false }
  attempt.found_after_restart = (answer.body.rows as unknown[]).length === 1
  writer.settle(attempt, attempt.found_after_restart)
  writer.pending = undefined
  return true
}

/** The writer's transactions until `stop()` or the kill; `answered` on each acknowledgment. */
async function write(writer: TxnWriter, url: string, attempts: Attempt[], problems: string[], stop: () => boolean, answered: () => void, random: () => number): Promise<void> {
  if (!await resolvePending(writer, url, problems)) return
  while (!stop()) {
    const attempt = writer.next()
    attempts.push(attempt)
    writer.pending = attempt
    let answer: Awaited<ReturnType<typeof query>>
    try {
      answer = await query(url, attempt.text, attempt.params)
    } catch {
      return // the kill: the next server is asked
    }
    writer.pending = undefined
    if (answer.status !== 200 || typeof answer.body.lsn !== 'number') {
      problems.push(`writer ${writer.writer}: ${answer.status} ${JSON.stringify(answer.body)}`)
      writer.settle(attempt, false)
      return
    }
    attempt.acked_lsn = answer.body.lsn
    writer.settle(attempt, true)
    answered()
    await pause(Math.floor(random() * 10))
  }
}

t.test('the feed delivers every committed transaction once, in LSN order, across kill -9 of the server, over WebSocket and long polls', async (t) => {
  const dir = tempDir(t, 'tenantdb-client-tail-kill9-')
  const dbDir = join(dir, 'db')
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, client_tail_schema)
  const writers = [0, 1, 2].map((w) => new TxnWriter(w, (seed ^ (0x1000 + w)) >>> 0))
  const attempts: Attempt[] = []
  const problems: string[] = []
  const ws = WebSocket as unknown as WebSocketConstructor
  const consumers: Array<[FeedConsumer, Partial<TailOptions>]> = [
    [new FeedConsumer('websocket'), { WebSocket: ws }],
    [new FeedConsumer('long poll'), {}],
    [new FeedConsumer('websocket of items and notes', 'items'), { WebSocket: ws, collections: ['items', 'notes'] }],
  ]
  t.teardown(() => Promise.all(consumers.map(([c]) => c.stop())))
  let port = 0
  const started = Date.now()
  let done = 0
  for (let cycle = 0; problems.length === 0 && (cycle < cycles_min || Date.now() - started < budget_ms); cycle += 1) {
    done = cycle + 1
    const random = rng((seed + cycle * 0x9e3779b1) >>> 0)
    const killDelay = 100 + Math.floor(random() * 801)
    let server: CliProcess
    try {
      ({ server, port } = await serve(t, dbDir, schemaFile, port))
    } catch (err) {
      problems.push(`cycle ${done}: the server did not start on port ${port}: ${(err as Error).message}`)
      break
    }
    const url = `http://127.0.0.1:${port}`
    // The feeds start once, with the first server, and follow every later one on their own.
    if (cycle === 0) for (const [c, options] of consumers) c.start({ urls: [url], token, tenant, after: 0, backoff: { initial_ms: 20, max_ms: 200 }, ...options })
    let killed = false
    let timer: NodeJS.Timeout | undefined
    const kill = () => { killed = true; server.child.kill('SIGKILL') }
    const answered = () => { timer ??= setTimeout(kill, killDelay) }
    const unanswered = setTimeout(answered, 10_000)
    await Promise.all(writers.map((w) => write(w, url, attempts, problems, () => killed, answered, random)))
    clearTimeout(unanswered)
    if (!killed) { clearTimeout(timer); kill() }
    const exit = await server.exited
    if (exit !== 'SIGKILL') problems.push(`cycle ${done}: the server exited with ${exit} instead of being killed:\n${server.stderr()}`)
  }

  // The last server is not killed: every feed delivers up to a sentinel written after
  // every writer learned what became of its unanswered transaction.
  const { server } = await serve(t, dbDir, schemaFile, port)
  const url = `http://127.0.0.1:${port}`
  for (const w of writers) if (!await resolvePending(w, url, problems)) problems.push(`writer ${w.writer} could not resolve its last transaction`)
  const sentinel = (writers[0] as TxnWriter).next(true)
  attempts.push(sentinel)
  const answer = await query(url, sentinel.text)
  if (answer.status === 200) sentinel.acked_lsn = answer.body.lsn as number
  else problems.push(`the sentinel: ${answer.status} ${JSON.stringify(answer.body)}`)
  const end = sentinel.acked_lsn ?? Number.MAX_SAFE_INTEGER
  for (const [c] of consumers) problems.push(...await c.until(end, 60_000))
  for (const [c] of consumers) await c.stop()
  const final = await readFinal(async (text, params) => {
    const { status, body } = await query(url, text, params)
    if (status !== 200) throw new Error(`${text}: ${status} ${JSON.stringify(body)}`)
    return body.rows as unknown[][]
  })
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'the last server stops cleanly')

  const feeds = consumers.map(([c]) => c)
  problems.push(...feeds.flatMap((c) => c.problems()), ...checkTail(tenant, attempts, final, feeds))
  const unanswered = attempts.filter((a) => a.found_after_restart !== undefined)
  const summary = `${done} cycles in ${Date.now() - started} ms; ${attempts.length} transactions sent, ${final.txns.size} committed, ` +
    `${unanswered.length} unanswered at a kill; ` +
    feeds.map((c) => `${c.name}: ${c.events.length} events, ${c.sessions.websocket} WebSocket sessions, ${c.sessions.poll} polls`).join('; ')
  t.same(problems, [], `no anomaly (${replay})`)
  if (problems.length > 0) t.fail(`${problems.length} problems (${replay}); first: ${problems[0]}`, { summary })
  t.comment(`seed ${seed} (${replay} replays it); ${summary}`)
  // Evidence that the run did what it claims.
  const failed = problems.length > 0
  t.ok(failed || done >= cycles_min, `at least ${cycles_min} kill cycles ran within the budget (${done}; ${replay})`)
  const [socket, longPoll, socketOfTwo] = feeds as [FeedConsumer, FeedConsumer, FeedConsumer]
  for (const c of [socket, socketOfTwo]) t.ok(failed || c.sessions.websocket > done, `${c.name} resumed over WebSocket after every restart (${c.sessions.websocket} sessions; ${replay})`)
  t.ok(failed || (longPoll.sessions.poll > done && longPoll.sessions.websocket === 0), `long poll: ${longPoll.sessions.poll} polls (${replay})`)
  // That each feed delivered across the kills: what it must deliver exactly is the check
  // above; how many a cycle writes depends on the machine's load (a filtered feed gets
  // about two thirds of them), so the floor is low.
  for (const c of feeds) t.ok(failed || c.events.length >= 8 * done, `${c.name}: ${c.events.length} events (${replay})`)
})
