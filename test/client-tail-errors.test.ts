// The client's change feed (src/client/tail.ts, docs/client.md "The change feed")
// against a real in-process server: backlog then live events over WebSocket and over
// long polls; the errors that end it (410 lsn_expired with oldest_lsn, a revoked token
// and a deleted tenant, unknown_collection from the server's filter and from the
// client's, other 4xx), each with its code; abort ends it with `aborted` and `break`
// ends it at once, and neither leaves a tail open on the server; a dead first node is
// passed over for the next. The close codes' meanings are checked on tail-failure.ts.
import { createServer } from 'node:http'
import t from 'tap'
import type { Test } from 'tap'
import WebSocket from 'ws'
import { TenantdbError } from '../src/client/errors.js'
import { answerVerdict, closeVerdict } from '../src/client/tail-failure.js'
import { tailEvents, tailEventsWithHooks, type TailEvent, type TailOptions, type WebSocketConstructor } from '../src/client/tail.js'
import { AccessTokens } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import { encodeCommitHeader } from '../src/txn/index.js'
import { client_tail_token as token, insertItem, openTails, startTailServer } from './helpers/client-tail-server.js'
import { pollUntil } from './helpers/poll.js'
import { issue } from './helpers/tenant-tokens.js'

const ws = WebSocket as unknown as WebSocketConstructor
const transports = [['websocket', { WebSocket: ws }], ['long poll', {}]] as const
const backoff = { initial_ms: 10, max_ms: 50 }

/** Takes `n` events from the feed (then stops it). */
async function take(feed: AsyncIterableIterator<TailEvent>, n: number): Promise<TailEvent[]> {
  const got: TailEvent[] = []
  if (n === 0) return got
  for await (const event of feed) if (got.push(event) >= n) break
  return got
}

/** The error the feed ends with (a failure if it delivers instead). */
async function endsWith(t: Test, feed: AsyncIterableIterator<TailEvent>): Promise<TenantdbError> {
  try {
    for await (const event of feed) t.fail(`delivered LSN ${event.lsn}`)
  } catch (err) {
    if (err instanceof TenantdbError) return err
    throw err
  }
  throw new Error('the feed ended without an error')
}

async function noTailOpen(origin: string): Promise<void> {
  let open: Record<string, number> = {}
  const deadline = Date.now() + 5_000
  do {
    open = await openTails(origin)
    if (open.websocket === 0 && open.poll === 0) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  } while (Date.now() < deadline)
  throw new Error(`tails still open: ${JSON.stringify(open)}`)
}

for (const [name, transport] of transports) {
  t.test(`${name}: the backlog after \`after\`, then live events, in LSN order, each once`, async (t) => {
    const { db, origin } = await startTailServer(t)
    const lsns = [] as number[]
    for (let id = 1; id <= 5; id += 1) lsns.push(await insertItem(db, id))
    const started: string[] = []
    const feed = tailEventsWithHooks({ urls: [origin], token, tenant: 'default', after: lsns[1] as number, backoff, ...transport }, { started: (kind) => started.push(kind) })
    const backlog = await feed.next()
    t.equal((backlog.value as TailEvent).lsn, lsns[2], 'the first event is the one after `after`')
    const live = insertItem(db, 6)
    const rest = await take(feed, 3)
    t.same(rest.map((e) => e.lsn), [lsns[3], lsns[4], await live])
    t.same([...new Set(started)], [name === 'websocket' ? 'websocket' : 'poll'], 'over the transport asked for')
    await noTailOpen(origin)
  })

  t.test(`${name}: 410 lsn_expired with oldest_lsn ends the feed`, async (t) => {
    const { db, origin } = await startTailServer(t, { tailRetentionBytes: 1, checkpointWalBytes: 1 })
    const early = await insertItem(db, 1)
    const blob = Buffer.alloc(1000 * 1024, 1)
    for (let i = 0; i < 40 && internalsOf(db).engine.stats().oldest_lsn <= early; i += 1) {
      await internalsOf(db).engine.commit([{ op: 'put', tree: 'filler', key: Buffer.from([i]), value: blob }], encodeCommitHeader('default', new Date(), 'catalog'))
    }
    const { oldest_lsn } = internalsOf(db).engine.stats()
    t.ok(oldest_lsn > early, 'retention deleted the early history')
    const err = await endsWith(t, tailEvents({ urls: [origin], token, tenant: 'default', after: 0, backoff, ...transport }))
    t.match(err, { code: 'lsn_expired', status: 410 })
    t.equal(err.details.oldest_lsn, oldest_lsn)
  })

  t.test(`${name}: a token revoked while the feed is open ends it with unauthorized; a deleted tenant's and a revoked one at once too`, async (t) => {
    const { db, origin } = await startTailServer(t)
    const issued = await issue(db, 'default', 'read')
    const first = await insertItem(db, 1)
    const feed = tailEvents({ urls: [origin], token: issued.token, tenant: 'default', after: 0, backoff, ...transport })
    t.equal((await feed.next()).value?.lsn, first)
    const waiting = feed.next()
    await AccessTokens.of(db).revoke('default', issued.id)
    const err = await waiting.then(() => undefined, (e: unknown) => e)
    t.match(err, { code: 'unauthorized', status: 401 }, 'the open feed ends')
    if (name === 'websocket') t.equal((err as TenantdbError).details.close_code, 4401, 'by the close 4401 of the open WebSocket')
    t.match(await endsWith(t, tailEvents({ urls: [origin], token: issued.token, tenant: 'default', backoff, ...transport })), { code: 'unauthorized', status: 401 }, 'a feed with the revoked token never starts')
    await db.ops({ op: 'create', name: 'gone' })
    const gone = await issue(db, 'gone', 'read')
    await db.ops({ op: 'delete', name: 'gone' })
    t.match(await endsWith(t, tailEvents({ urls: [origin], token: gone.token, tenant: 'gone', backoff, ...transport })), { code: 'unauthorized', status: 401 }, 'the token of a deleted tenant')
    t.match(await endsWith(t, tailEvents({ urls: [origin], token, tenant: 'nobody', backoff, ...transport })), { code: 'unknown_tenant', status: 404 }, 'the service token, a tenant that is not there')
    await noTailOpen(origin)
  })

  t.test(`${name}: unknown_collection, from the server's filter and from the client's; other 4xx end the feed`, async (t) => {
    const { db, origin } = await startTailServer(t)
    const base: TailOptions = { urls: [origin], token, tenant: 'default', backoff, ...transport }
    t.match(await endsWith(t, tailEvents({ ...base, collections: ['nope'] })), { code: 'unknown_collection', status: 400 })
    t.match(await endsWith(t, tailEvents({ ...base, collections: ['items', 'nope'] })), { code: 'unknown_collection', status: 400 })
    const head = await insertItem(db, 1)
    t.match(await endsWith(t, tailEvents({ ...base, after: head + 1000 })), { code: 'bad_request', status: 400 }, 'an after beyond the only node\'s newest commit')
    await db.ops({ op: 'suspend', name: 'default' })
    t.match(await endsWith(t, tailEvents(base)), { code: 'tenant_suspended', status: 423 })
  })

  t.test(`${name}: several collections are filtered by the client, which resumes past what it filtered out`, async (t) => {
    const { db, origin } = await startTailServer(t)
    await db.tenant('default').query('insert txns {id: 1, writer: 0, seq: 1}')
    const item = await insertItem(db, 2)
    await db.tenant('default').query('insert txns {id: 3, writer: 0, seq: 3}')
    const mixed = await db.tenant('default').query('atomic { insert txns {id: 4, writer: 0, seq: 4}; insert items {id: 5, writer: 0, v: 5} }')
    const got = await take(tailEvents({ urls: [origin], token, tenant: 'default', collections: ['items', 'notes'], backoff, ...transport }), 2)
    t.same(got.map((e) => e.lsn), [item, mixed.lsn])
    t.same(got[1]?.changes.map((c) => c.collection), ['items'], 'only the changes to the collections asked for')
  })

  t.test(`${name}: abort ends the feed with aborted, break at once; no tail is left open`, async (t) => {
    const { db, origin } = await startTailServer(t)
    await insertItem(db, 1)
    const controller = new AbortController()
    const feed = tailEvents({ urls: [origin], token, tenant: 'default', signal: controller.signal, backoff, ...transport })
    await feed.next()
    const waiting = feed.next() // waits for a live event that never comes
    await new Promise((resolve) => setTimeout(resolve, 100))
    controller.abort()
    t.match(await waiting.then(() => undefined, (e: unknown) => e), { code: 'aborted', status: undefined })
    t.same(await feed.next(), { done: true, value: undefined }, 'and stays ended')
    await noTailOpen(origin)
    const started = Date.now()
    let n = 0
    for await (const _ of tailEvents({ urls: [origin], token, tenant: 'default', backoff, ...transport })) { n += 1; break }
    t.equal(n, 1)
    await noTailOpen(origin)
    // return() while the feed waits for a live event ends it at once too.
    const idle = tailEvents({ urls: [origin], token, tenant: 'default', after: await insertItem(db, 2), backoff, ...transport })
    const pending = idle.next()
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.same(await idle.return?.(), { done: true, value: undefined })
    t.same(await pending, { done: true, value: undefined }, 'the pending next() ends')
    await noTailOpen(origin)
    t.ok(Date.now() - started < 10_000, 'without waiting for a long poll to end')
  })

  t.test(`${name}: a node that does not answer is passed over for the next`, async (t) => {
    const { db, origin } = await startTailServer(t)
    const lsn = await insertItem(db, 1)
    const got = await take(tailEvents({ urls: ['http://127.0.0.1:1', origin], token, tenant: 'default', backoff, ...transport }), 1)
    t.equal(got[0]?.lsn, lsn)
  })
}

t.test('without a WebSocket class (Node 20 has no global one) the feed long-polls', async (t) => {
  const { db, origin } = await startTailServer(t)
  const started: string[] = []
  const lsn = await insertItem(db, 1)
  const feed = tailEventsWithHooks({ urls: [origin], token, tenant: 'default' }, { started: (kind) => started.push(kind) })
  t.equal((await take(feed, 1))[0]?.lsn, lsn)
  t.same(started, ['poll'])
})

t.test('upgrades refused by something between that does not upgrade: after two, the feed long-polls', async (t) => {
  const { db, origin, port } = await startTailServer(t)
  // Something in front of the server that answers every upgrade with a page of its own.
  const refuser = createServer()
  refuser.on('upgrade', (_req, socket) => { socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n') })
  await new Promise<void>((resolve) => refuser.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => refuser.close(() => resolve())))
  const refuserPort = (refuser.address() as { port: number }).port
  const Base = WebSocket as unknown as new (url: string) => object
  const Refused = class extends Base { constructor(url: string) { super(url.replace(`:${port}/`, `:${refuserPort}/`)) } } as unknown as WebSocketConstructor
  const started: string[] = []
  const lsns = [await insertItem(db, 1), await insertItem(db, 2), await insertItem(db, 3)]
  const feed = tailEventsWithHooks({ urls: [origin], token, tenant: 'default', WebSocket: Refused, backoff }, { started: (kind) => started.push(kind) })
  const got: number[] = []
  for (let i = 0; i < 3; i += 1) got.push((await feed.next()).value?.lsn as number)
  const next = feed.next()
  // The second refusal's poll found nothing new; the feed long-polls from then on: a
  // poll that answers at once (the feed is long-polling), then long polls.
  await pollUntil(() => started.length >= 6, () => `a long poll (${started.join(', ')})`)
  const live = await insertItem(db, 4)
  got.push((await next).value?.lsn as number)
  await feed.return?.()
  t.same(got, [...lsns, live])
  t.same(started, ['websocket', 'poll', 'websocket', 'poll', 'poll', 'poll'], 'each refused upgrade is asked again as a poll, then the feed long-polls')
})

t.test('a WebSocket feed holding more undelivered events than it keeps closes, delivers them, and resumes after them', async (t) => {
  const { db, origin } = await startTailServer(t)
  const lsns: number[] = []
  for (let id = 1; id <= 30; id += 1) lsns.push(await insertItem(db, id))
  const started: string[] = []
  const feed = tailEventsWithHooks({ urls: [origin], token, tenant: 'default', WebSocket: ws, backoff }, { socketQueueMax: 4, started: (kind) => started.push(kind) })
  const got: number[] = []
  for (let i = 0; i < 30; i += 1) {
    got.push((await feed.next()).value?.lsn as number)
    await new Promise((resolve) => setTimeout(resolve, 2)) // a slow consumer: the backlog arrives meanwhile
  }
  await feed.return?.()
  t.same(got, lsns, 'every event once, in order')
  t.ok(started.length >= 3 && started.every((kind) => kind === 'websocket'), `resumed over WebSocket (${started.length} sessions)`)
})

t.test('answers: 5xx, 408 and 429 reconnect (429 after its Retry-After), other 4xx end the feed', async (t) => {
  t.match(answerVerdict(503, { error: 'shutting down', code: 'shutting_down' }, undefined, false), { retry: true, next_node: true })
  t.match(answerVerdict(502, '<html>bad gateway</html>', undefined, false), { retry: true, next_node: true }, 'a proxy\'s page')
  t.same(answerVerdict(429, { error: 'slow down', code: 'rate_limited', retry_after_s: 3 }, 1, false), { retry: true, reason: '429 rate_limited', next_node: false, wait_ms: 3_000 })
  t.match(answerVerdict(429, { error: 'too many', code: 'rate_limited' }, 2, false), { retry: true, wait_ms: 2_000 }, 'the Retry-After header when the body names none')
  t.match(answerVerdict(408, { error: 'late', code: 'request_timeout' }, undefined, false), { retry: true, next_node: false })
  const beyond = { error: 'after 90 is beyond the newest commit of this database (LSN 80)', code: 'bad_request' }
  t.match(answerVerdict(400, beyond, undefined, true), { retry: true, next_node: true }, 'among several nodes: one that lags')
  t.match(answerVerdict(400, beyond, undefined, false), { retry: false, error: { code: 'bad_request', status: 400 } }, 'the only node: another directory')
  t.match(answerVerdict(410, { error: 'gone', code: 'lsn_expired', oldest_lsn: 7 }, undefined, true), { retry: false, error: { code: 'lsn_expired', details: { oldest_lsn: 7 } } })
  t.match(answerVerdict(418, 'teapot', undefined, false), { retry: false, error: { code: 'http_418' } })
})

t.test('close codes: 4410 and 4401 end the feed with their HTTP errors, the others reconnect', async (t) => {
  const expired = closeVerdict(4410, 'lsn_expired; oldest_lsn=812')
  t.match(expired, { retry: false, error: { code: 'lsn_expired', status: 410, details: { oldest_lsn: 812, close_code: 4410 } } })
  t.match(closeVerdict(4401, 'token revoked or expired'), { retry: false, error: { code: 'unauthorized', status: 401 } })
  t.match(closeVerdict(1009, ''), { retry: false, error: { code: 'payload_too_large' } })
  for (const code of [1001, 1006, 1011]) t.match(closeVerdict(code, ''), { retry: true, next_node: true }, `${code}`)
  t.match(closeVerdict(1013, 'consumer too slow; resume with after=5'), { retry: true, next_node: false }, '1013: the same node, later')
})
