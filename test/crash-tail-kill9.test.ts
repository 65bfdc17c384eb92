// R12 (docs/architecture.md, "Testing", "Claims and the tests that back them"): the
// change tail is exactly-once across kill -9 of the real server. Each cycle starts
// `tenantdb serve` on the same directory; three writers commit transactions over HTTP
// (each an atomic block naming itself in `txns`, plus writes to the writer's own
// `items`: test/helpers/tail-workload.ts), a fourth commits 22 of 800 KiB each over the
// run (so the WAL, and the tail, cross from one 16 MiB segment into the next), a fifth
// writes to another tenant (frames the consumers must skip), and four consumers
// follow tenant `default` (test/helpers/tail-consumers.ts): plain HTTP polls
// of random sizes with pauses between them, long polls, a WebSocket, and a WebSocket
// following `items` only; the WebSockets also end their sessions themselves at random
// times. The server is SIGKILLed 50–1000 ms after it acknowledged its first write, so
// kills land during polls, between polls, during long-poll waits and WebSocket
// sessions (backlog and live), and during large and small commits.
// Every consumer then resumes on the next server from the `after` it last processed.
// After the last cycle a server that is not killed serves a sentinel transaction, every
// consumer reads up to it, and the final state is read. The checker
// (test/helpers/tail-check.ts) takes "committed" from that final state and the
// acknowledgments: every acknowledged transaction is committed; each consumer received
// every committed transaction exactly once, in LSN order, with the changes it was
// written with, and nothing else (a transaction whose answer the kill swallowed may be
// committed or not, and appears exactly when it is); the changes received, replayed,
// give the final rows.
//
//   TENANTDB_TAIL_KILL9_CYCLES     most cycles (default 100)
//   TENANTDB_TAIL_KILL9_BUDGET_MS  time after which no new cycle starts (15 000 in
//                                  `npm test`, 120 000 under TENANTDB_SOAK=1,
//                                  test/helpers/soak.ts; a run longer than tap's
//                                  600 s file limit needs `npx tap --timeout=N`)
//   TENANTDB_TAIL_KILL9_SEED       seed of the workload, the consumers' choices and the
//                                  kill delays (default fixed; printed on failure)
//
// A cycle costs 1–3 s (mostly the server's start), so the loop stops starting cycles
// once its budget is spent and fails if that left fewer than `cycles_min`. The
// scheduler decides what the server was doing at the kill, so a seed replays the same
// choices and delays, not the same interleaving.
//
// The server checkpoints every 16 KiB of WAL (`--checkpoint-wal-bytes`) and keeps the
// default tail retention (256 MiB), far more than the run writes, so every resume is
// within retention and any 410 is a failure. The second test resumes from beyond
// retention after a kill and expects the documented 410 `lsn_expired`.
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { budget } from './helpers/soak.js'
import type { Test } from 'tap'
import WebSocket from 'ws'
import type { TailChange, TailEvent } from '../src/cdc/index.js'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { checkTail, type FinalState } from './helpers/tail-check.js'
import { TailConsumer } from './helpers/tail-consumers.js'
import { rng } from './helpers/rng.js'
import { tail_schema, TxnWriter, type Attempt } from './helpers/tail-workload.js'
import { tempDir } from './helpers/temp-dir.js'

const cycles = Number(process.env.TENANTDB_TAIL_KILL9_CYCLES ?? 100)
const budget_ms = budget('TENANTDB_TAIL_KILL9_BUDGET_MS', 15_000, 120_000)
const cycles_min = Math.min(cycles, budget_ms >= 40_000 ? 8 : 5)
const seed = Number(process.env.TENANTDB_TAIL_KILL9_SEED ?? 0x7a11_0012)
const replay = `TENANTDB_TAIL_KILL9_SEED=${seed}`
const token = 't12t12t12t12t12t12t12t12t12t12t1'
const tenant = 'default'
/** Large transactions committed in the run, and their size: together more than one 16 MiB WAL segment. */
const large_txns = 22
const large_tag_bytes = 800 * 1024

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

const query = (url: string, tenantName: string, text: string, params: Record<string, number | string> = {}) =>
  post(url, `/t/${tenantName}/query`, { query: text, params })

async function serve(t: Test, dir: string, schemaFile: string, extra: string[] = []): Promise<{ server: CliProcess; url: string }> {
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', schemaFile, '--token', token, ...extra], { LOG_LEVEL: 'warn' })
  const url = (await server.waitFor(/url: (http:\/\/\S+\/api\/v1)\n/))[1] as string
  return { server, url }
}

/** Asks the server whether the writer's unanswered transaction committed; false if it could not ask. */
async function resolvePending(writer: TxnWriter, url: string, problems: string[]): Promise<boolean> {
  const attempt = writer.pending
  if (attempt === undefined) return true
  let answer: Awaited<ReturnType<typeof query>>
  try {
    answer = await query(url, tenant, 'txns | where id == $id | select id', { id: attempt.txn })
  } catch {
    return false // killed before it could ask: ask the next server
  }
  if (answer.status !== 200) { problems.push(`writer ${writer.writer}: looking up transaction ${attempt.txn}: ${answer.status} ${JSON.stringify(answer.body)}`); return false }
  const found = (answer.body.rows as unknown[]).length === 1
  attempt.found_after_restart = found
  writer.settle(attempt, found)
  writer.pending = undefined
  return true
}

interface WriteContext {
  url: string
  attempts: Attempt[]
  problems: string[]
  stop(): boolean
  /** Called on every acknowledgment. */
  answered?(): void
}

/**
 * Sends the writer's transactions (`next`, until it has none) until `stop()` or the
 * kill, recording each and its answer.
 */
async function write(writer: TxnWriter, { url, attempts, problems, stop, answered }: WriteContext, next: () => Promise<Attempt | undefined> | Attempt = () => writer.next()): Promise<void> {
  if (!await resolvePending(writer, url, problems)) return
  while (!stop()) {
    const attempt = await next()
    if (attempt === undefined || stop()) return
    attempts.push(attempt)
    writer.pending = attempt
    let answer: Awaited<ReturnType<typeof query>>
    try {
      answer = await query(url, tenant, attempt.text, attempt.params)
    } catch {
      return // the kill: the outcome is unknown until the next server is asked
    }
    writer.pending = undefined
    if (answer.status !== 200 || typeof answer.body.lsn !== 'number') {
      problems.push(`writer ${writer.writer}: ${answer.status} ${JSON.stringify(answer.body)} for ${attempt.text.slice(0, 300)}`)
      writer.settle(attempt, false)
      return
    }
    attempt.acked_lsn = answer.body.lsn
    writer.settle(attempt, true)
    answered?.()
  }
}

/** Another tenant's writes: frames a consumer of `default` must skip (and move past). */
async function writeOther(url: string, random: () => number, problems: string[], stop: () => boolean): Promise<void> {
  while (!stop()) {
    let answer: Awaited<ReturnType<typeof query>>
    try {
      answer = await query(url, 'other', 'upsert items {id: $id, writer: 99, v: $v}', { id: Math.floor(random() * 50), v: Math.floor(random() * 1000) })
    } catch {
      return
    }
    if (answer.status !== 200) { problems.push(`tenant other: ${answer.status} ${JSON.stringify(answer.body)}`); return }
    await pause(Math.floor(random() * 20))
  }
}

/** Every row of a collection, by id, read in pages. */
async function readAll(url: string, collection: string, columns: string[]): Promise<Map<number, Record<string, unknown>>> {
  const rows = new Map<number, Record<string, unknown>>()
  for (let after = -1; ;) {
    const { status, body } = await query(url, tenant, `${collection} | where id > $after | take 5000 | select ${columns.join(', ')}`, { after })
    if (status !== 200) throw new Error(`reading ${collection}: ${status} ${JSON.stringify(body)}`)
    const page = body.rows as unknown[][]
    for (const values of page) rows.set(values[0] as number, Object.fromEntries(columns.map((c, i) => [c, values[i]])))
    if (page.length < 5000) return rows
    after = page[page.length - 1]?.[0] as number
  }
}

t.test('R12: the change tail is exactly-once across kill -9 of the server, over HTTP polls and WebSockets resumed by `after`', async (t) => {
  const dir = tempDir(t, 'tenantdb-tail-kill9-')
  const dbDir = join(dir, 'db')
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, tail_schema)
  const writers = [0, 1, 2].map((w) => new TxnWriter(w, (seed ^ (0x1000 + w)) >>> 0))
  // Large transactions, spread over the run, take the WAL past its first 16 MiB segment.
  const large = new TxnWriter(3, (seed ^ 0x1003) >>> 0)
  const largeRandom = rng(seed + 5)
  const nextLarge = async () => {
    await pause(Math.floor(largeRandom() * 150))
    // Counted once committed (a kill loses some): acknowledged, or found after a restart.
    const committed = attempts.filter((a) => a.writer === large.writer && (a.acked_lsn !== undefined || a.found_after_restart === true)).length
    return committed < large_txns ? large.nextLarge(large_tag_bytes) : undefined
  }
  const consumers = [
    new TailConsumer('poll', 'poll', rng(seed + 1), tenant),
    new TailConsumer('long poll', 'long-poll', rng(seed + 2), tenant),
    new TailConsumer('websocket', 'websocket', rng(seed + 3), tenant),
    new TailConsumer('websocket of items', 'websocket', rng(seed + 4), tenant, 'items'),
  ]
  const attempts: Attempt[] = []
  const problems: string[] = []
  const started = Date.now()
  let done = 0
  let restartResumes = 0

  for (let cycle = 0; cycle < cycles && problems.length === 0 && (cycle < cycles_min || Date.now() - started < budget_ms); cycle += 1) {
    done = cycle + 1
    const random = rng((seed + cycle * 0x9e3779b1) >>> 0)
    const killDelay = 50 + Math.floor(random() * 951)
    let server: CliProcess
    let url: string
    try {
      ({ server, url } = await serve(t, dbDir, schemaFile, ['--checkpoint-wal-bytes', String(16 * 1024)]))
    } catch (err) {
      problems.push(`cycle ${done}: the server did not start: ${(err as Error).message}`)
      break
    }
    if (cycle === 0) {
      const created = await post(url, '/t/other/ops', { op: 'create' })
      if (created.status !== 200) problems.push(`creating tenant other: ${created.status} ${JSON.stringify(created.body)}`)
    }
    let killed = false
    const stop = () => killed
    const kill = () => { killed = true; server.child.kill('SIGKILL') }
    // The delay runs from the first acknowledgment: a cold server is slow to answer at first.
    let timer: NodeJS.Timeout | undefined
    const answered = () => { timer ??= setTimeout(kill, killDelay) }
    const unanswered = setTimeout(answered, 10_000) // no write answered at all: a problem is recorded
    const context: WriteContext = { url, attempts, problems, stop, answered }
    restartResumes += consumers.filter((c) => c.after > 0).length
    const tasks = [
      ...writers.map((w) => write(w, context)),
      write(large, context, nextLarge),
      writeOther(url, rng(random() * 2 ** 32), problems, stop),
      // Consumers come late by a random time: the kill finds some catching up on a backlog.
      ...consumers.map(async (c) => { await pause(Math.floor(random() * 150)); await c.run({ url, token, stop }) }),
    ]
    await Promise.all(tasks)
    clearTimeout(unanswered)
    if (!killed) { clearTimeout(timer); kill() } // every task ended early: a problem is recorded
    const exit = await server.exited
    if (exit !== 'SIGKILL') problems.push(`cycle ${done}: the server exited with ${exit} instead of being killed:\n${server.stderr()}`)
    for (const c of consumers) problems.push(...c.problems.splice(0).map((p) => `cycle ${done} (kill at ${killDelay} ms): ${p}`))
  }

  // The last server is not killed: every consumer reads up to a sentinel written after
  // every writer learned what became of its unanswered transaction.
  const { server, url } = await serve(t, dbDir, schemaFile, ['--checkpoint-wal-bytes', String(16 * 1024)])
  for (const w of [...writers, large]) if (!await resolvePending(w, url, problems)) problems.push(`writer ${w.writer} could not resolve its last transaction`)
  await write(large, { url, attempts, problems, stop: () => false }, nextLarge) // the rest of its share, if the kills left some
  const sentinel = (writers[0] as TxnWriter).next(true)
  attempts.push(sentinel)
  const answer = await query(url, tenant, sentinel.text)
  if (answer.status === 200) sentinel.acked_lsn = answer.body.lsn as number
  const end = sentinel.acked_lsn ?? Number.MAX_SAFE_INTEGER
  restartResumes += consumers.filter((c) => c.after > 0).length
  await Promise.all(consumers.map(async (c) => {
    const deadline = Date.now() + 60_000
    const stop = () => c.after >= end || c.problems.length > 0 || Date.now() > deadline
    while (!stop()) await c.run({ url, token, stop })
    if (c.after < end) c.problems.push(`${c.name} is stuck at LSN ${c.after}; the sentinel is at ${end}`)
  }))
  for (const c of consumers) problems.push(...c.problems.map((p) => `after the last restart: ${p}`))
  const final: FinalState = {
    txns: await readAll(url, 'txns', ['id', 'writer', 'seq']),
    items: await readAll(url, 'items', ['id', 'writer', 'v', 'tag']),
  }
  const detail = await (await fetch(`${url}/health/detail`, { headers: { authorization: `Bearer ${token}` } })).json() as { corruption: { total: number }; wal: { bytes: number } }
  if (detail.corruption.total !== 0) problems.push(`corruption after the last restart: ${JSON.stringify(detail.corruption)}`)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'the last server stops cleanly')

  problems.push(...checkTail(tenant, attempts, final, consumers))
  const elapsed = Date.now() - started
  const acked = attempts.filter((a) => a.acked_lsn !== undefined).length
  const unanswered = attempts.filter((a) => a.found_after_restart !== undefined)
  const summary = `${done} cycles in ${elapsed} ms; ${attempts.length} transactions sent, ${acked} acknowledged, ` +
    `${unanswered.length} unanswered at a kill (${unanswered.filter((a) => a.found_after_restart).length} of them committed), ${final.txns.size} committed; ` +
    consumers.map((c) => `${c.name}: ${c.events.length} events, ${c.resumes} resumes, ${c.cut} cut by a kill${c.kind === 'websocket' ? '' : `, ${c.between} killed between polls`}`).join('; ')
  if (problems.length > 0) {
    const kept = mkdtempSync(join(tmpdir(), `tenantdb-tail-kill9-failed-${seed}-`))
    cpSync(dir, kept, { recursive: true })
    // tap shows a message's first line only: the problems go in the diagnostics.
    t.fail(`${problems.length} problems (${replay}; directory kept at ${kept}); first: ${problems[0]}`, { problems: problems.slice(0, 40), summary })
  } else {
    t.pass('every committed transaction reached every consumer exactly once, in order, as written; nothing else did')
  }
  t.comment(`seed ${seed} (${replay} replays it); ${summary}`)
  // Evidence that the run did what it claims (moot once it failed: the loop stops at the first problem).
  const failed = problems.length > 0
  t.ok(failed || done >= cycles_min, `at least ${cycles_min} kill cycles ran within the budget (${done}; ${replay})`)
  t.ok(failed || restartResumes >= consumers.length * 2, `consumers resumed from an LSN on a restarted server ${restartResumes} times (${replay})`)
  for (const c of consumers) t.ok(failed || c.events.length > 0, `${c.name}: ${c.events.length} events (${replay})`)
  const [poller, longPoller, ...sockets] = consumers as [TailConsumer, TailConsumer, ...TailConsumer[]]
  t.ok(failed || poller.cut + longPoller.cut > 0, `kills cut polls (${poller.cut} and ${longPoller.cut} long polls; ${replay})`)
  t.ok(failed || poller.between > 0, `kills came between two polls (${poller.between} times; ${replay})`)
  for (const c of sockets) t.ok(failed || c.cut > 0, `kills cut ${c.name} sessions (${c.cut}; ${replay})`)
  t.ok(failed || detail.wal.bytes > 16 * 1024 * 1024, `the WAL (${detail.wal.bytes} bytes) grew past its first 16 MiB segment: the tail was read across a segment boundary`)
  t.ok(failed || (unanswered.length > 0 && acked >= done), `kills left transactions unanswered (${unanswered.length}), and ${acked} were acknowledged (${replay})`)
})

/** The status and JSON body of a WebSocket upgrade the server refused (or 101 if it accepted). */
function upgrade(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url)
    socket.on('open', () => { socket.close(); resolve({ status: 101, body: {} }) })
    socket.on('error', () => {})
    socket.on('unexpected-response', (req, res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        req.destroy()
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> })
      })
    })
  })
}

t.test('R12: after a kill -9, a resume from beyond tail retention is the documented 410 lsn_expired (poll and WebSocket), and one from oldest_lsn - 1 misses nothing', async (t) => {
  const dir = tempDir(t, 'tenantdb-tail-retention-')
  const dbDir = join(dir, 'db')
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, tail_schema)
  // docs/operations.md, "Disk space": with no retention, whole 16 MiB WAL segments go
  // once checkpointed, never the newest.
  const flags = ['--checkpoint-wal-bytes', '4096', '--tail-retention-bytes', '0']
  const first = await serve(t, dbDir, schemaFile, flags)
  const early = await query(first.url, tenant, 'insert txns {id: 1, writer: 0, seq: 1}')
  const after = early.body.lsn as number // where a consumer that went away stopped
  const tail = (url: string, from: number) => fetch(`${url}/t/${tenant}/tail?after=${from}&limit=1`, { headers: { authorization: `Bearer ${token}` } })
  const tag = 't'.repeat(900 * 1024)
  const written: Array<{ lsn: number; id: number }> = []
  let expiredBefore: { oldest_lsn?: number } | undefined
  for (let id = 1; id <= 60 && expiredBefore === undefined; id += 1) {
    const insert = await query(first.url, tenant, 'insert items {id: $id, writer: 0, v: $id, tag: $tag}', { id, tag })
    if (insert.status !== 200) { t.fail(`insert ${id}: ${insert.status} ${JSON.stringify(insert.body)}`); break }
    written.push({ lsn: insert.body.lsn as number, id })
    const res = await tail(first.url, after)
    if (res.status === 410) expiredBefore = await res.json() as { oldest_lsn: number }
    else await res.body?.cancel()
  }
  t.ok(expiredBefore !== undefined, 'retention deleted the frames after the consumer\'s place')
  first.server.child.kill('SIGKILL')
  t.equal(await first.server.exited, 'SIGKILL', 'killed')

  const { server, url } = await serve(t, dbDir, schemaFile, flags)
  const polled = await tail(url, after)
  const body = await polled.json() as { error: unknown; code: unknown; oldest_lsn: number }
  t.equal(polled.status, 410, 'a poll from beyond retention, after the restart: 410')
  t.match(body, { error: String, code: 'lsn_expired', oldest_lsn: Number }, 'the documented body (docs/api.md, "Change tail")')
  t.same(Object.keys(body).sort(), ['code', 'conflict', 'error', 'oldest_lsn'], 'and nothing else')
  t.ok(body.oldest_lsn > after + 1 && body.oldest_lsn >= (expiredBefore?.oldest_lsn ?? Infinity), `oldest_lsn ${body.oldest_lsn}: past the consumer's place (${after}), not behind what the killed server said (${expiredBefore?.oldest_lsn})`)
  const refused = await upgrade(`${url.replace(/^http/, 'ws')}/t/${tenant}/tail?after=${after}&token=${token}`)
  t.same(refused, { status: 410, body: { error: refused.body.error, code: 'lsn_expired', conflict: false, oldest_lsn: body.oldest_lsn } }, 'the WebSocket upgrade is refused the same way, before upgrading')

  // Resuming where the 410 says, over both forms, gives every write from there, once.
  const expected = written.filter((w) => w.lsn >= body.oldest_lsn)
  t.ok(expected.length > 0 && expected.length < written.length, `${expected.length} of ${written.length} writes are still retained`)
  const end = (written.at(-1) as { lsn: number }).lsn
  for (const kind of ['poll', 'websocket'] as const) {
    const consumer = new TailConsumer(kind, kind, rng(seed), tenant)
    consumer.after = body.oldest_lsn - 1
    const deadline = Date.now() + 30_000
    const stop = () => consumer.after >= end || consumer.problems.length > 0 || Date.now() > deadline
    while (!stop()) await consumer.run({ url, token, stop })
    t.same(consumer.problems, [], `${kind}: no refusal or misordered event`)
    t.same(consumer.events.map((e: TailEvent) => ({ lsn: e.lsn, id: e.changes[0]?.key, changes: e.changes.length })), expected.map((w) => ({ lsn: w.lsn, id: w.id, changes: 1 })),
      `${kind} from oldest_lsn - 1: every retained write, in order, once`)
  }
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'the server stops cleanly')
})

t.test('R12: the checker flags a lost acknowledgment, a duplicate, a gap, an uncommitted or altered transaction, disorder, a filtered gap and rows the tail does not explain', async (t) => {
  const txnRow = (txn: number, writer: number, seq: number) => ({ id: txn, writer, seq })
  const item = (id: number, v: number) => ({ id, writer: 0, v, tag: 'x' })
  const attempt = (txn: number, seq: number, items: TailChange[], extra: Partial<Attempt>): Attempt => ({
    txn, writer: 0, seq, text: '', params: {}, changes: [{ collection: 'txns', op: 'insert', key: txn, row: txnRow(txn, 0, seq) }, ...items], ...extra,
  })
  const attempts = [
    attempt(11, 1, [{ collection: 'items', op: 'insert', key: 1, row: item(1, 5) }], { acked_lsn: 4 }),
    attempt(12, 2, [], { found_after_restart: true }), // its answer was lost; it committed
    attempt(13, 3, [{ collection: 'items', op: 'update', key: 1, row: item(1, 6) }], { found_after_restart: false }),
    attempt(14, 4, [{ collection: 'items', op: 'update', key: 1, row: item(1, 7) }], { acked_lsn: 9 }),
  ]
  const event = (a: Attempt, lsn: number): TailEvent => ({ lsn, at: '', tenant, changes: a.changes })
  const [a11, a12, a13, a14] = attempts as [Attempt, Attempt, Attempt, Attempt]
  const final = (): FinalState => ({
    txns: new Map([[11, txnRow(11, 0, 1)], [12, txnRow(12, 0, 2)], [14, txnRow(14, 0, 4)]]),
    items: new Map([[1, item(1, 7)]]),
  })
  const itemsOnly = (e: TailEvent): TailEvent => ({ ...e, changes: e.changes.filter((c) => c.collection === 'items') })
  const good = [event(a11, 4), event(a12, 7), event(a14, 9)]
  const consumers = (events: TailEvent[], filtered = [good[0], good[2]].map((e) => itemsOnly(e as TailEvent))) =>
    [{ name: 'whole', events }, { name: 'items', collection: 'items', events: filtered }]
  t.same(checkTail(tenant, attempts, final(), consumers(good)), [], 'a right history passes')

  const flags = (f: FinalState, events: TailEvent[], pattern: RegExp, what: string, filtered?: TailEvent[]) =>
    t.match(checkTail(tenant, attempts, f, consumers(events, filtered)).join('\n'), pattern, what)
  const lost = final()
  lost.txns.delete(14)
  flags(lost, good, /transaction 14 was acknowledged at LSN 9 and is not in the final state/, 'an acknowledged transaction lost')
  flags(final(), [...good.slice(0, 2), event(a12, 8), good[2] as TailEvent], /repeats transaction 12/, 'a transaction delivered twice')
  flags(final(), [good[0] as TailEvent, good[2] as TailEvent], /committed transaction 12 never arrived \(unacknowledged\)/, 'a committed transaction missing')
  flags(final(), [...good.slice(0, 2), event(a13, 8), good[2] as TailEvent], /transaction 13, which is not in the final state/, 'a transaction that did not commit')
  const altered = { ...event(a11, 4), changes: [a11.changes[0] as TailChange, { collection: 'items', op: 'insert' as const, key: 1, row: item(1, 99) }] }
  flags(final(), [altered, ...good.slice(1)], /transaction 11\) holds .*99/, 'a transaction with other content')
  flags(final(), [good[1] as TailEvent, good[0] as TailEvent, good[2] as TailEvent], /came after LSN 7/, 'disorder')
  flags(final(), [event(a11, 5), ...good.slice(1)], /transaction 11, known at LSN 4/, 'an event at another LSN than acknowledged')
  flags(final(), good, /items: event 2 of 1 is missing/, 'a filtered consumer that missed one', [itemsOnly(good[0] as TailEvent)])
  const edited = final()
  edited.items.set(1, item(1, 8))
  flags(edited, good, /items 1: stored .*"v":8.*the tail's changes give .*"v":7/, 'rows the tail does not explain')
  const found = final()
  found.txns.set(13, txnRow(13, 0, 3))
  flags(found, good, /transaction 13 was not there after a restart and is in the final state/, 'a transaction that appeared later')
})
