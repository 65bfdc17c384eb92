// The client over HTTP against a real server (test/helpers/http-server.ts): the shared
// checks (test/helpers/client-suite.ts), then what only a remote client meets: a wrong
// token, transaction(fn) refused, a server that never answers (timeout), the caller's
// abort, a closed port (network_error), reads failing over to the next node, a write
// with no answer never sent again, and a follower's 421 followed to the primary it names
// (a tiny real HTTP server answering as a follower does, naming the real server).
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, type Socket } from 'node:net'
import t, { type Test } from 'tap'
import { connect, type Client } from '../src/client/index.js'
import { client_primary_hops_max } from '../src/limits.js'
import { clientSuite, rejection } from './helpers/client-suite.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'

const token = 'client-remote-token-0123456789abcdef'
/** fetch itself (the Fetch standard) sends a request answered 421 once more, on a new connection. */
const fetch_421_sends = 2

async function server(t: Test): Promise<string> {
  return (await startServer(t, { token, db: await openExampleDatabase(t) })).origin
}

clientSuite(t, async (t) => connect({ url: await server(t), token }))

/** A TCP server that accepts connections and never answers. */
async function silentServer(t: Test): Promise<string> {
  const sockets = new Set<Socket>()
  const tcp = createTcpServer((socket) => { sockets.add(socket); socket.on('error', () => {}) })
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); tcp.close(() => resolve()) }))
  return `http://127.0.0.1:${(tcp.address() as { port: number }).port}`
}

/** A port nothing listens on: listened on, then closed. */
async function closedPort(): Promise<string> {
  const tcp = createTcpServer()
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
  const { port } = tcp.address() as { port: number }
  await new Promise<void>((resolve) => tcp.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

/** A real HTTP server answering every request as a follower does: 421 `not_primary` naming `primary()`. */
async function follower(t: Test, primary: () => string | null): Promise<{ url: string; requests: () => number }> {
  let requests = 0
  const http = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    requests += 1
    req.resume()
    req.on('end', () => {
      res.writeHead(421, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify({ error: 'this node is a follower: send writes to the primary', code: 'not_primary', conflict: false, primary: primary(), outcome: 'not_written' }))
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()) }))
  return { url: `http://127.0.0.1:${(http.address() as { port: number }).port}`, requests: () => requests }
}

t.test('connect({url, token, tenant}) is that tenant, with its client and close()', async (t) => {
  const db = await connect({ url: await server(t), token, tenant: 'default' })
  t.equal(db.name, 'default')
  await db.query('insert users {id: 1, email: "a@example.com", name: "A"}')
  t.same((await db.client.tenant('default').query('users | select id')).rows, [[1]])
  await db.close()
})

t.test('access() of a tenant token, trends() with and without after', async (t) => {
  const url = await server(t)
  const client = await connect({ url, token })
  const issued = await client.tenant('default').issueToken({ scope: 'write' })
  const scoped = await connect({ url, token: issued.token })
  t.match(await scoped.access(), { credential: 'tenant', scope: 'write', tenants: ['default'], expires_at: null })
  t.match(await rejection(t, scoped.tenant('default').tokens(), 'a tenant token listing tokens'), { code: 'forbidden', status: 403 })
  const all = await client.trends()
  t.type(all.interval_ms, 'number')
  t.ok(Object.keys(all.series).length > 0, 'the columns')
  const none = await client.trends({ after: 4_000_000_000 })
  t.same(Object.keys(none.series).sort(), Object.keys(all.series).sort(), 'the same columns')
  t.ok(Object.values(none.series).every((column) => column.length === 0), 'no sample after a time to come: `after` was sent')
})

t.test('a wrong token: unauthorized, 401', async (t) => {
  const client = await connect({ url: await server(t), token: 'not-the-token-0123456789abcdef' })
  t.match(await rejection(t, client.health(), 'health with a wrong token'), { code: 'unauthorized', status: 401, conflict: false })
  t.match(await rejection(t, client.tenant('default').query('users'), 'a query with a wrong token'), { code: 'unauthorized', status: 401 })
})

t.test('transaction(fn) over HTTP: not_allowed_here naming atomic blocks, fn never called', async (t) => {
  const db = (await connect({ url: await server(t), token })).tenant('default')
  let called = false
  const err = await rejection(t, db.transaction(async () => { called = true }), 'a remote transaction')
  t.match(err, { code: 'not_allowed_here', status: 400 })
  t.match(err.message, /atomic/, 'names the way: an atomic block')
  t.notOk(called)
})

t.test('a server that never answers: timeout after timeout_ms', async (t) => {
  const client = await connect({ url: await silentServer(t), token, timeout_ms: 300 })
  const started = Date.now()
  const err = await rejection(t, client.tenant('default').query('users'), 'a query to a silent server')
  t.match(err, { code: 'timeout', status: undefined, unanswered: true })
  const took = Date.now() - started
  t.ok(took >= 250 && took < 5000, `ended by the time limit (${took} ms)`)
})

t.test('the caller\'s AbortSignal: aborted, on every kind of call', async (t) => {
  const client = await connect({ url: await silentServer(t), token })
  const calls: Array<[string, (signal: AbortSignal) => Promise<unknown>]> = [
    ['query', (signal) => client.tenant('default').query('users', {}, { signal })],
    ['ops', (signal) => client.ops({ op: 'create', name: 'x' }, { signal })],
    ['diff', (signal) => client.tenant('default').diff({ from: 'a', signal })],
    ['health', (signal) => client.health({ signal })],
    ['snapshots', (signal) => client.tenant('default').snapshots({ signal })],
  ]
  for (const [name, call] of calls) {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    t.match(await rejection(t, call(controller.signal), name), { code: 'aborted', status: undefined }, `${name}: aborted`)
  }
})

t.test('a closed port: network_error; a read goes on to the next node, a write does not', async (t) => {
  const closed = await closedPort()
  const alone = await connect({ url: closed, token })
  t.match(await rejection(t, alone.health(), 'health on a closed port'), { code: 'network_error', status: undefined })
  const live = await server(t)
  const both = await connect({ urls: [closed, live], token })
  t.match(await both.health(), { ok: true }, 'the read reached the second node')
  t.same((await both.tenants()).tenants.map((e) => e.name), ['default'])
  const db = both.tenant('default')
  const write = await rejection(t, db.query('insert users {id: 1, email: "a@example.com", name: "A"}'), 'a write to a closed primary')
  t.match(write, { code: 'network_error', status: undefined }, 'a write with no answer is not sent elsewhere')
  const check = await connect({ url: live, token, tenant: 'default' })
  t.same((await check.query('users')).rows, [], 'nothing was written by another node')
})

t.test('a follower\'s 421: the write goes to the primary it names, which is remembered', async (t) => {
  const primary = await server(t)
  const node = await follower(t, () => primary)
  const client = await connect({ urls: [node.url, primary], token })
  const db = client.tenant('default')
  t.match(await db.query('insert users {id: 1, email: "a@example.com", name: "A"}'), { lsn: Number })
  const asked = node.requests()
  t.ok(asked >= 1 && asked <= fetch_421_sends, `the follower was asked for the first write (${asked} requests)`)
  await db.query('insert users {id: 2, email: "b@example.com", name: "B"}')
  await client.ops({ op: 'create', name: 'acme' })
  t.equal(node.requests(), asked, 'later writes go straight to the primary')
  t.same((await connect({ url: primary, token, tenant: 'default' }).then((d) => d.query('users | select id'))).rows, [[1], [2]])
})

t.test('421 following is bounded, and a 421 naming no primary fails as not_primary', async (t) => {
  let b = ''
  const a = await follower(t, () => b)
  const other = await follower(t, () => a.url)
  b = other.url
  const client: Client = await connect({ urls: [a.url], token })
  const err = await rejection(t, client.tenant('default').query('insert users {id: 1, email: "a@example.com", name: "A"}'), 'two followers naming each other')
  t.match(err, { code: 'not_primary', status: 421 })
  const asked = a.requests() + other.requests()
  t.ok(asked >= client_primary_hops_max + 1 && asked <= fetch_421_sends * (client_primary_hops_max + 1), `${client_primary_hops_max} hops, then the 421 (${asked} requests)`)
  t.ok(other.requests() > 0, 'the named primary was tried')
  const none = await follower(t, () => null)
  const alone = await connect({ url: none.url, token })
  t.match(await rejection(t, alone.ops({ op: 'create', name: 'acme' }), 'a follower that knows no primary'), { code: 'not_primary', status: 421, details: { primary: null } })
  t.ok(none.requests() <= fetch_421_sends, `no hop (${none.requests()} requests)`)
})

t.test('an answer that is no error body (a proxy\'s page): http_<status>, the status kept', async (t) => {
  const http = createHttpServer((req, res) => {
    req.resume()
    res.writeHead(502, { 'content-type': 'text/html' })
    res.end('<html><body>bad gateway</body></html>')
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()) }))
  const client = await connect({ url: `http://127.0.0.1:${(http.address() as { port: number }).port}/`, token })
  t.match(await rejection(t, client.health(), 'health behind a failing proxy'), { code: 'http_502', status: 502, conflict: false, message: 'the server answered 502 without an error body' })
})

t.test('a plain-text answer that is no error body: its text is the message', async (t) => {
  const http = createHttpServer((req, res) => {
    req.resume()
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
    res.end('upstream overloaded\n')
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()) }))
  const client = await connect({ url: `http://127.0.0.1:${(http.address() as { port: number }).port}`, token })
  t.match(await rejection(t, client.health(), 'health behind a proxy saying why'), { code: 'http_503', status: 503, message: 'upstream overloaded' })
})

t.test('connect refuses what cannot work before sending anything', async (t) => {
  t.match(await rejection(t, connect({ url: 'http://127.0.0.1:1', token: '' }), 'no token'), { code: 'unauthorized', status: 401 })
  t.match(await rejection(t, connect({ url: 'http://127.0.0.1:1', token, timeout_ms: 0 }), 'a time limit of 0'), { code: 'bad_request' })
  t.match(await rejection(t, connect({ urls: [], token }), 'no node'), { code: 'bad_request' })
})
