// The client's change feed (src/client/tail.ts) is exactly-once across dropped
// connections: four feeds (WebSocket and long polls; the whole tenant, one collection
// filtered by the server, two by the client) follow tenant `default` of a real
// in-process server through a TCP proxy (test/helpers/tcp-proxy.ts) that drops every
// connection at random moments (mid-backlog, mid-message, mid-poll, between polls),
// while three writers commit transactions (test/helpers/tail-workload.ts). After a
// sentinel, test/helpers/tail-check.ts checks what each feed delivered: every committed
// transaction exactly once, in LSN order, as written, and nothing else. Two negative
// controls must make that check fail: a feed that resumes from the position + 1 (it
// skips an event) and one that resumes from the position - 1 (it delivers one again),
// through the tests' hook on the feed's `after` (TailHooks.resumeAfter).
//
//   TENANTDB_CLIENT_TAIL_PROXY_SEED       seed of the workload and the cuts (printed on failure)
//   TENANTDB_CLIENT_TAIL_PROXY_BUDGET_MS  how long the writers write and the proxy cuts
//                                         (3 000; 60 000 under TENANTDB_SOAK=1)
import t from 'tap'
import type { Test } from 'tap'
import type { TailHooks, TailOptions } from '../src/client/tail.js'
import { client_tail_token as token, startTailServer } from './helpers/client-tail-server.js'
import { FeedConsumer, readFinal } from './helpers/client-tail-consumer.js'
import { proxiedFetch, proxiedWebSocket } from './helpers/client-tail-proxied.js'
import { rng } from './helpers/rng.js'
import { budget } from './helpers/soak.js'
import { checkTail } from './helpers/tail-check.js'
import { TxnWriter, type Attempt } from './helpers/tail-workload.js'
import { startTcpProxy } from './helpers/tcp-proxy.js'

const seed = Number(process.env.TENANTDB_CLIENT_TAIL_PROXY_SEED ?? 0x7a11_c11e)
const replay = `TENANTDB_CLIENT_TAIL_PROXY_SEED=${seed}`
const budget_ms = budget('TENANTDB_CLIENT_TAIL_PROXY_BUDGET_MS', 3_000, 60_000)
const backoff = { initial_ms: 5, max_ms: 50 }
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Run { problems: string[]; consumers: FeedConsumer[]; cuts: number; attempts: Attempt[]; summary: string }

/** The least the main run must have done to show what it claims (checked at its end). */
const evidence = { cuts: 10, transactions: 100, websocket_sessions: 5, polls: 10 }

/**
 * `wait_ms`: how long a feed may take to deliver the sentinel once the writers stopped.
 * `until_evidence`: go on past `duration_ms` (up to five times it) until the run holds
 * the `evidence` minimums, so a loaded machine, where fewer cuts land in the same
 * time, still gives the run its evidence.
 */
async function run(t: Test, duration_ms: number, wait_ms: number, hooks: () => TailHooks = () => ({}), until_evidence = false): Promise<Run> {
  const { db, port } = await startTailServer(t)
  const proxy = await startTcpProxy(t, () => port)
  const random = rng(seed)
  // The server's own address: proxiedFetch and proxiedWebSocket go through the proxy.
  const url = `http://127.0.0.1:${port}`
  const [fetch, ws] = [proxiedFetch(proxy.port), proxiedWebSocket(port, proxy.port)]
  const consumers: Array<[FeedConsumer, Partial<TailOptions>]> = [
    [new FeedConsumer('websocket'), { WebSocket: ws }],
    [new FeedConsumer('long poll'), {}],
    [new FeedConsumer('websocket of items and notes', 'items'), { WebSocket: ws, collections: ['items', 'notes'] }],
    [new FeedConsumer('long poll of items', 'items'), { collections: ['items'] }],
  ]
  t.teardown(() => Promise.all(consumers.map(([c]) => c.stop())))
  for (const [consumer, options] of consumers) consumer.start({ urls: [url], token, tenant: 'default', after: 0, backoff, fetch, ...options }, hooks())
  const attempts: Attempt[] = []
  const writers = [0, 1, 2].map((w) => new TxnWriter(w, (seed ^ (0x1000 + w)) >>> 0))
  const commit = async (writer: TxnWriter, attempt: Attempt) => {
    attempts.push(attempt)
    const answer = await db.tenant('default').query(attempt.text, attempt.params)
    if (answer.lsn === undefined) throw new Error(`no commit: ${attempt.text}`)
    attempt.acked_lsn = answer.lsn
    writer.settle(attempt, true)
    return answer.lsn
  }
  const started = Date.now()
  let cuts = 0
  const [socket, longPoll, socketOfTwo] = consumers.map(([c]) => c) as [FeedConsumer, FeedConsumer, FeedConsumer, FeedConsumer]
  // Each WebSocket feed too: on a loaded machine a feed's connections may be cut before
  // any session began, many times over.
  const enough = () => cuts >= evidence.cuts && attempts.length >= evidence.transactions && longPoll.sessions.poll >= evidence.polls &&
    Math.max(socket.sessions.websocket, socketOfTwo.sessions.websocket) >= evidence.websocket_sessions &&
    [socket, socketOfTwo].every((c) => c.sessions.websocket >= 1 && c.sessions.websocket + c.sessions.poll >= evidence.websocket_sessions)
  const running = () => {
    const elapsed = Date.now() - started
    return elapsed < duration_ms || (until_evidence && !enough() && elapsed < duration_ms * 5)
  }
  await Promise.all([
    ...writers.map(async (w) => { while (running()) { await commit(w, w.next()); await pause(Math.floor(random() * 8)) } }),
    (async () => { while (running()) { await pause(5 + Math.floor(random() * 120)); proxy.cut(); proxy.heal(); cuts += 1 } })(),
  ])
  const sentinel = await commit(writers[0] as TxnWriter, (writers[0] as TxnWriter).next(true))
  const stuck = (await Promise.all(consumers.map(([c]) => c.until(sentinel, wait_ms)))).flat()
  for (const [c] of consumers) await c.stop()
  const final = await readFinal(async (text, params) => (await db.tenant('default').query(text, params)).rows)
  const feeds = consumers.map(([c]) => c)
  const problems = [...stuck, ...feeds.flatMap((c) => c.problems()), ...checkTail('default', attempts, final, feeds)]
  const summary = `${cuts} cuts in ${Date.now() - started} ms, ${attempts.length} transactions; ` +
    feeds.map((c) => `${c.name}: ${c.events.length} events, ${c.sessions.websocket} WebSocket sessions, ${c.sessions.poll} polls`).join('; ')
  return { problems, consumers: feeds, cuts, attempts, summary }
}

t.test('the feed delivers every committed transaction once, in LSN order, across connections dropped at random', async (t) => {
  const { problems, consumers, cuts, attempts, summary } = await run(t, budget_ms, 60_000, () => ({}), true)
  t.same(problems, [], `no anomaly (${replay})`)
  if (problems.length > 0) t.fail(`${problems.length} problems (${replay}); first: ${problems[0]}`)
  t.comment(`seed ${seed} (${replay} replays it); ${summary}`)
  // Evidence that the run did what it claims.
  t.ok(cuts >= evidence.cuts, `the proxy dropped the connections ${cuts} times`)
  t.ok(attempts.length >= evidence.transactions, `${attempts.length} transactions committed`)
  const [socket, longPoll, socketOfTwo] = consumers as [FeedConsumer, FeedConsumer, FeedConsumer, FeedConsumer]
  // A cut during an upgrade looks, to a WebSocket, like something between that does not
  // upgrade: after two in a row a feed long-polls for a while (docs/client.md, "The
  // change feed"), so one of the two may have resumed mostly by polls.
  t.ok(Math.max(socket.sessions.websocket, socketOfTwo.sessions.websocket) >= evidence.websocket_sessions, `a feed resumed over WebSocket ${socket.sessions.websocket} and ${socketOfTwo.sessions.websocket} times`)
  for (const c of [socket, socketOfTwo]) t.ok(c.sessions.websocket >= 1 && c.sessions.websocket + c.sessions.poll >= evidence.websocket_sessions, `${c.name}: ${c.sessions.websocket} WebSocket sessions and ${c.sessions.poll} polls`)
  t.ok(longPoll.sessions.poll >= evidence.polls && longPoll.sessions.websocket === 0, `long poll: ${longPoll.sessions.poll} polls`)
  for (const c of consumers) t.ok(c.events.length >= 20, `${c.name}: ${c.events.length} events`)
})

t.test('negative controls: resuming from the position + 1, or - 1, fails the same check', async (t) => {
  // Every reconnect after an event was delivered is off by one (the first asks for `after: 0`).
  const offByOne = (delta: number) => () => ({ resumeAfter: (position: number) => (position > 0 ? position + delta : position) })
  const skipped = await run(t, 1_500, 2_000, offByOne(1))
  t.ok(skipped.problems.some((p) => /never arrived|is missing|event \d+ of \d+/.test(p)), `resuming from position + 1 misses events (${skipped.problems[0] ?? 'no problem found'}; ${replay})`)
  const again = await run(t, 1_500, 2_000, offByOne(-1))
  t.ok(again.problems.some((p) => /delivered again|repeats/.test(p)), `resuming from position - 1 delivers one again (${again.problems[0] ?? 'no problem found'}; ${replay})`)
})
