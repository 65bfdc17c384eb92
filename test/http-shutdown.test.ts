// SIGTERM/SIGINT on the real `tenantdb serve` process: in-flight requests complete,
// the database is closed and the process exits 0. While the server closes, a request
// that arrives on a connection it still holds gets 503 `shutting_down`, and a new
// connection is refused (ECONNREFUSED) once the listener is gone (docs/operations.md
// "Stopping", src/cli/serve.ts).
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { api, startServer } from './helpers/http-server.js'
import { hang_guard_ms, pollUntil } from './helpers/poll.js'
import { parseExposition, sampleValue } from './helpers/prometheus-text.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'shutdown-token-0123456789abcdef'

t.test('SIGTERM: an in-flight long poll completes, the process exits 0, the directory is released', async (t) => {
  const dir = tempDir(t)
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', 'examples/schema.eel', '--token', token])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const origin = new URL(url as string).origin
  const call = api(origin, token)
  const write = await call('/api/v1/t/default/query', { json: { query: 'insert users {id: 1, email: "a@x", name: "A"}' } })
  t.equal(write.status, 200)
  const lsn = write.body.lsn as number

  // wait_ms is longer than the shutdown grace (10 s, after which the process exits 1):
  // exiting 0 below shows shutdown ended the poll instead of waiting it out.
  const inFlight = call(`/api/v1/t/default/tail?after=${lsn}&wait_ms=25000`)
  // The metrics count polls in progress: wait until the server has this one, instead of
  // guessing how long it takes to get there.
  const deadline = Date.now() + hang_guard_ms
  const polling = async () => sampleValue(parseExposition(String((await call('/api/v1/metrics')).body)), 'tenantdb_tail_subscribers', { transport: 'poll' })
  while (await polling() !== 1) {
    if (Date.now() > deadline) throw new Error('hang guard: the long poll never reached the server')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  server.child.kill('SIGTERM')
  const res = await inFlight
  t.equal(res.status, 200, 'the in-flight request got its answer')
  t.same(res.body, { events: [], last_lsn: lsn, head_lsn: lsn })
  t.equal(await server.exited, 0, 'SIGTERM is a clean exit, within the grace period')
  t.match(server.stdout(), /"signal":"SIGTERM","msg":"shutting down"/)

  const db = await Database.open(dir, { schema: ['examples/schema.eel'] })
  t.teardown(() => db.close())
  const rows = await db.tenant('default').query('users | get 1 | select email')
  t.same(rows.rows, [['a@x']], 'the lock was released and the write is durable')
})

t.test('SIGINT is a clean exit too', async (t) => {
  const server = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', '--token', token])
  await server.waitFor(/url: /)
  server.child.kill('SIGINT')
  t.equal(await server.exited, 0)
})

t.test('closing: a request that arrives while the server closes gets 503 shutting_down; a new connection is refused', async (t) => {
  const { app, port } = await startServer(t, { token })
  const accepted: Socket[] = []
  app.server.on('connection', (socket: Socket) => accepted.push(socket))
  // A connection whose request has begun is not idle, so closing keeps it (and waits
  // for it); the rest of the request is sent once the server is closing.
  const client = connect(port, '127.0.0.1')
  await once(client, 'connect')
  const head = `GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n`
  client.write(head)
  await pollUntil(() => accepted.length === 1 && accepted[0]?.bytesRead === head.length, "the server to read the request's first lines")
  const received: Buffer[] = []
  client.on('data', (chunk: Buffer) => received.push(chunk))
  const ended = once(client, 'end')

  let closed = false
  const closing = app.close().then(() => { closed = true })
  await pollUntil(() => !app.server.listening, 'the listener to close')
  const refused = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const late = connect(port, '127.0.0.1')
    late.on('connect', () => { late.destroy(); resolve(undefined) })
    late.on('error', resolve)
  })
  t.equal(refused?.code, 'ECONNREFUSED', 'a new connection is refused once the listener closed')
  t.equal(closed, false, 'close() waits for the connection with a request under way')

  client.write('\r\n')
  await ended
  const text = Buffer.concat(received).toString('utf8')
  const [headText = '', body = ''] = text.split('\r\n\r\n')
  t.match(headText, /^HTTP\/1\.1 503 /, 'the request that arrived while closing')
  t.match(headText, /\r\nconnection: close\r\n/i, 'its connection is closed after the answer')
  t.same(JSON.parse(body), { error: 'the server is shutting down', code: 'shutting_down', conflict: false })
  await closing
})

t.test('serve accepts --console-origin and refuses a malformed one', async (t) => {
  const bad = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', '--console-origin', 'not a url'])
  t.equal(await bad.exited, 2)
  t.match(bad.stderr(), /--console-origin must be an origin/)
  const server = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', '--token', token, '--console-origin', 'http://localhost:5173/'])
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  const res = await fetch(`${url}/health`, { headers: { authorization: `Bearer ${token}`, origin: 'http://localhost:5173' } })
  t.equal(res.headers.get('access-control-allow-origin'), 'http://localhost:5173')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})
