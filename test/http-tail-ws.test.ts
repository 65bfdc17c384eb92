// The change tail over a real WebSocket (docs/api.md "Change tail"): the backlog then
// live events, one JSON text message each; resume by `after` with no duplicate and no
// gap; the collection filter; and every refusal happening BEFORE the upgrade, as a plain
// HTTP status (401 without ?token= or with a header token, 404, 400, 410, and 400 for
// an upgrade of any other route), answered with `Connection: close` and closed by the
// server: the client here never ends a refused connection itself.
import { createRequire } from 'node:module'
import type { Socket } from 'node:net'
import t from 'tap'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import type { TailEvent } from '../src/cdc/index.js'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database, type OpenOptions } from '../src/database/index.js'
import { buildServer } from '../src/http/index.js'
import { close_codes, type TailWebSocketOptions } from '../src/http/routes/tail-ws.js'
import { encodeCommitHeader } from '../src/txn/index.js'
import { hang_guard_ms, pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'
import { internalsOf } from '../src/database/internals.js'

const token = 'tail-token-0123456789abcdefghijk'
const schema = `collection items { id: int primary, v: int }
collection notes { id: int primary, text: string }`

// `ws` ships no types and @types/ws is not installed: the little of it the tests use.
export interface WsClient {
  readyState: number
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): WsClient
  on(event: 'open', listener: () => void): WsClient
  on(event: 'close', listener: (code: number, reason: Buffer) => void): WsClient
  on(event: 'error', listener: (err: Error) => void): WsClient
  on(event: 'unexpected-response', listener: (req: { socket: Socket }, res: { statusCode: number; headers: Record<string, string | undefined>; on(e: 'data', l: (c: Buffer) => void): void; on(e: 'end', l: () => void): void }) => void): WsClient
  close(): void
  pause(): void
  resume(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string, options?: { headers?: Record<string, string> }) => WsClient

/**
 * A real server on 127.0.0.1 over a real database, closed when the test ends. Refused
 * upgrades are closed by the server itself (the WebSocket plugin is registered before
 * every hook that can refuse one), so no connection is left for the test to end.
 */
export async function startTailServer(t: Test, wsOptions: TailWebSocketOptions = {}, openOptions: OpenOptions = {}): Promise<{ db: Database; app: FastifyInstance; origin: string; ws: string }> {
  const dir = tempDir(t)
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, schema)
  const db = await Database.open(join(dir, 'db'), { ...openOptions, schema: [schemaFile] })
  t.teardown(() => db.close())
  const app = await buildServer({ token, schema: [], db, tailWebSocket: wsOptions })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const address = app.server.address()
  if (address === null || typeof address !== 'object') throw new Error('server has no address')
  return { db, app, origin: `http://127.0.0.1:${address.port}`, ws: `ws://127.0.0.1:${address.port}` }
}

/** An open tail: the events received so far, and waiting for the n-th one or the close. */
function openTail(url: string, headers: Record<string, string> = {}) {
  const events: TailEvent[] = []
  const waiters: Array<() => void> = []
  let closed: { code: number; reason: string } | undefined
  const socket = new WebSocket(url, { headers })
  socket.on('message', (data, isBinary) => {
    if (isBinary) throw new Error('a tail message must be text')
    events.push(JSON.parse(data.toString('utf8')) as TailEvent)
    for (const w of waiters.splice(0)) w()
  })
  socket.on('close', (code, reason) => {
    closed = { code, reason: reason.toString('utf8') }
    for (const w of waiters.splice(0)) w()
  })
  socket.on('error', () => {})
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', resolve)
    socket.on('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)))
  })
  return {
    socket,
    events,
    opened,
    get closed() { return closed },
    /** Waits for `predicate`, woken by each message and the close; fails after the hang guard. */
    async until(predicate: () => boolean, what: string): Promise<void> {
      const deadline = Date.now() + hang_guard_ms
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`hang guard: still waiting for ${what} after ${hang_guard_ms} ms; have ${events.length} events, closed=${JSON.stringify(closed)}`)
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 50) })
      }
    },
    async close(): Promise<void> {
      if (closed !== undefined) return
      socket.close()
      await this.until(() => closed !== undefined, 'close')
    },
  }
}

/** How long the server may take to close a refused upgrade's connection: it does so at once; this only guards against a hang. */
const refused_close_hang_guard_ms = 10_000

/**
 * The status, `Connection` header and JSON body of an upgrade the server refused
 * before upgrading. Resolves once the server has closed the connection; nothing here
 * ends it, so a server that left it open fails with the hang guard.
 */
function refusal(url: string, headers: Record<string, string> = {}): Promise<{ status: number; connection: string | undefined; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.on('open', () => { socket.close(); reject(new Error('the upgrade was accepted')) })
    socket.on('error', () => {})
    socket.on('unexpected-response', (req, res) => {
      const chunks: Buffer[] = []
      const guard = setTimeout(() => reject(new Error(`the server left the refused connection (${res.statusCode}) open for ${refused_close_hang_guard_ms} ms`)), refused_close_hang_guard_ms)
      const closed = new Promise((resolveClosed) => req.socket.once('close', resolveClosed))
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => {
        void closed.then(() => {
          clearTimeout(guard)
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({ status: res.statusCode, connection: res.headers.connection, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) })
        })
      })
    })
  })
}

async function insert(db: Database, collection: string, id: number): Promise<number> {
  const fields = collection === 'items' ? `id: ${id}, v: ${id * 10}` : `id: ${id}, text: "n${id}"`
  const r = await db.tenant('default').query(`insert ${collection} { ${fields} }`)
  if (r.lsn === undefined) throw new Error('no commit')
  return r.lsn
}

t.test('tail ws: backlog, then live events, one JSON text message each', async (t) => {
  const { db, ws } = await startTailServer(t)
  const lsns = [await insert(db, 'items', 1), await insert(db, 'notes', 2)]
  const tail = openTail(`${ws}/api/v1/t/default/tail?token=${token}`)
  await tail.opened
  await tail.until(() => tail.events.length >= 2, 'the backlog')
  t.same(tail.events.map((e) => e.lsn), lsns, 'the backlog in LSN order')
  t.match(tail.events[0], { lsn: lsns[0], tenant: 'default', changes: [{ collection: 'items', op: 'insert', row: { id: 1, v: 10 } }] })
  t.type(tail.events[0]?.at, 'string')
  const live = await insert(db, 'items', 3)
  await tail.until(() => tail.events.length >= 3, 'the live event')
  t.equal(tail.events[2]?.lsn, live, 'a live event after the backlog')
  t.equal(tail.events.length, 3, 'each event once')
  await tail.close()
})

t.test('tail ws: resume by after: no duplicate, no gap', async (t) => {
  const { db, ws } = await startTailServer(t)
  const all: number[] = []
  for (let i = 1; i <= 5; i += 1) all.push(await insert(db, 'items', i))
  const first = openTail(`${ws}/api/v1/t/default/tail?token=${token}`)
  await first.until(() => first.events.length >= 3, 'three events')
  await first.close()
  const seen = first.events.map((e) => e.lsn)
  const resumeAfter = seen[seen.length - 1]
  all.push(await insert(db, 'items', 6)) // committed while disconnected
  const second = openTail(`${ws}/api/v1/t/default/tail?after=${resumeAfter}&token=${token}`)
  await second.until(() => second.events.length > 0 && second.events[second.events.length - 1]?.lsn === all[all.length - 1], 'the rest')
  const union = [...seen, ...second.events.map((e) => e.lsn)]
  t.same(union, all, 'the union is every commit, in order, once')
  t.ok(second.events.every((e) => e.lsn > (resumeAfter ?? 0)), 'after is exclusive')
  await second.close()
})

t.test('tail ws: the collection filter', async (t) => {
  const { db, ws } = await startTailServer(t)
  await insert(db, 'items', 1)
  const note = await insert(db, 'notes', 1)
  const tail = openTail(`${ws}/api/v1/t/default/tail?collection=notes&token=${token}`)
  await tail.until(() => tail.events.length >= 1, 'the note')
  await insert(db, 'items', 2)
  const note2 = await insert(db, 'notes', 2)
  await tail.until(() => tail.events.length >= 2, 'the live note')
  t.same(tail.events.map((e) => e.lsn), [note, note2])
  t.ok(tail.events.every((e) => e.changes.every((c) => c.collection === 'notes')))
  await tail.close()
})

t.test('tail ws: refusals come before the upgrade', async (t) => {
  const { db, ws } = await startTailServer(t)
  const head = await insert(db, 'items', 1)
  const url = `${ws}/api/v1/t/default/tail`
  const none = await refusal(url)
  t.equal(none.status, 401, 'no token')
  t.same(none.body, { error: 'missing or invalid token', code: 'unauthorized', conflict: false })
  t.equal(none.connection, 'close', 'the refusal says the connection ends with it')
  t.equal((await refusal(`${url}?token=${token.replace(/.$/, '!')}`)).status, 401, 'wrong token')
  const bearer = await refusal(url, { authorization: `Bearer ${token}` })
  t.equal(bearer.status, 401, 'a Bearer header token does not open a tail')
  t.equal(bearer.body.code, 'unauthorized')
  t.equal((await refusal(url, { 'x-service-token': token })).status, 401, 'nor an X-Service-Token header')
  t.equal((await refusal(`${url}?token=${token}`, { 'x-service-token': token })).status, 401, 'nor a header beside the query token')
  const unknown = await refusal(`${ws}/api/v1/t/nobody/tail?token=${token}`)
  t.equal(unknown.status, 404)
  t.equal(unknown.body.code, 'unknown_tenant')
  const bad = await refusal(`${url}?after=abc&token=${token}`)
  t.equal(bad.status, 400)
  t.equal(bad.body.code, 'bad_request')
  t.equal((await refusal(`${url}?after=${head + 1000}&token=${token}`)).status, 400, 'an after beyond the head')
  // Only the tail upgrades: any other route refuses before the upgrade, token or not.
  for (const other of ['/api/v1/health', '/api/v1/t/default/collections', '/console/']) {
    const res = await refusal(`${ws}${other}?token=${token}`)
    t.equal(res.status, 400, `an upgrade of ${other}`)
    t.same(res.body, { error: `GET ${other} does not take a WebSocket upgrade; only the change tail does`, code: 'bad_request', conflict: false })
    t.equal(res.connection, 'close')
  }
  t.equal((await refusal(`${ws}/api/v1/health`)).status, 401, 'without the token, auth answers first')
  // The query token alone opens it.
  const ok = openTail(`${url}?token=${token}`)
  await ok.opened
  await ok.close()
})

t.test('tail ws: 410 before the upgrade for an after retention deleted', async (t) => {
  const { db, ws } = await startTailServer(t, {}, { tailRetentionBytes: 1, checkpointWalBytes: 1 })
  const early = await insert(db, 'items', 1)
  // Whole WAL segments are deleted, never the newest: fill more than one.
  const blob = Buffer.alloc(1000 * 1024, 1)
  for (let i = 0; i < 40 && internalsOf(db).engine.stats().oldest_lsn <= early; i += 1) {
    await internalsOf(db).engine.commit([{ op: 'put', tree: 'filler', key: Buffer.from([i]), value: blob }], encodeCommitHeader('default', new Date(), 'catalog'))
  }
  const { oldest_lsn } = internalsOf(db).engine.stats()
  t.ok(oldest_lsn > early, 'retention deleted the early frames')
  const expired = await refusal(`${ws}/api/v1/t/default/tail?after=0&token=${token}`)
  t.equal(expired.status, 410)
  t.same(expired.body, { error: expired.body.error, code: 'lsn_expired', conflict: false, oldest_lsn })
  // Without after it starts at the oldest retained event.
  const late = await insert(db, 'items', 2)
  const tail = openTail(`${ws}/api/v1/t/default/tail?token=${token}`)
  await tail.until(() => tail.events.some((e) => e.lsn === late), 'the late insert')
  t.ok(tail.events.every((e) => e.lsn >= oldest_lsn))
  await tail.close()
})

t.test('tail ws: a consumer that stops reading is closed with 1013 and resumes by after', async (t) => {
  const { db, app, ws } = await startTailServer(t, { buffered_bytes_low: 512, buffered_bytes_max: 1024, stall_ms_max: 300 })
  // Big events, so the kernel's socket buffers fill quickly.
  const big = 'x'.repeat(200 * 1024)
  const lsns: number[] = []
  for (let i = 0; i < 60; i += 1) {
    const r = await db.tenant('default').query(`insert notes { id: ${i}, text: $t }`, { t: big })
    lsns.push(r.lsn ?? -1)
  }
  const tail = openTail(`${ws}/api/v1/t/default/tail?token=${token}`)
  await tail.opened
  tail.socket.pause()
  // Not reading, until the server has given up on this consumer and begun closing it.
  const ws_closing = 2
  await pollUntil(() => [...app.websocketServer.clients].some((c) => c.readyState >= ws_closing), 'the server to close the stalled tail')
  tail.socket.resume()
  await tail.until(() => tail.closed !== undefined, 'the close')
  t.equal(tail.closed?.code, close_codes.try_again_later, 'closed with 1013')
  t.match(tail.closed?.reason, /^consumer too slow; resume with after=\d+$/)
  t.ok(tail.events.length < lsns.length, `closed after ${tail.events.length} of ${lsns.length} events`)
  const got = tail.events.map((e) => e.lsn)
  t.same(got, lsns.slice(0, got.length), 'what it got is a prefix, in order')
  // A client resumes by `after` as often as it is closed (this server's limits are
  // tiny, so even a reading client is closed after a few of these large events).
  const all = [...got]
  for (let attempt = 0; attempt < 100 && all.length < lsns.length; attempt += 1) {
    const resume = openTail(`${ws}/api/v1/t/default/tail?after=${all.at(-1) ?? 0}&token=${token}`)
    await resume.until(() => resume.closed !== undefined || all.length + resume.events.length >= lsns.length, 'more events')
    all.push(...resume.events.map((e) => e.lsn))
    await resume.close()
  }
  t.same(all, lsns, 'no duplicate, no gap across the resumptions')
})

t.test('tail ws: an oversize client message closes with 1009', async (t) => {
  const { ws } = await startTailServer(t)
  const tail = openTail(`${ws}/api/v1/t/default/tail?token=${token}`)
  await tail.opened
  ;(tail.socket as unknown as { send(data: Buffer): void }).send(Buffer.alloc(1024 * 1024 + 1))
  await tail.until(() => tail.closed !== undefined, 'the close')
  t.equal(tail.closed?.code, close_codes.message_too_big)
})
