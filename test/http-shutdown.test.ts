// SIGTERM/SIGINT on the real `tenantdb serve` process: in-flight requests complete,
// new ones are refused (503 shutting_down, or no connection once the listener is gone),
// the database is closed and the process exits 0.
import t from 'tap'
import { Database } from '../src/database/index.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { api, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'
import { join } from 'node:path'

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

  const started = Date.now()
  const inFlight = call(`/api/v1/t/default/tail?after=${lsn}&wait_ms=25000`)
  await new Promise((resolve) => setTimeout(resolve, 300))
  server.child.kill('SIGTERM')
  const res = await inFlight
  t.equal(res.status, 200, 'the in-flight request got its answer')
  t.same(res.body, { events: [], last_lsn: lsn, head_lsn: lsn })
  t.ok(Date.now() - started < 10_000, 'the long poll ended at shutdown, not after wait_ms')

  const late = await call('/api/v1/health').then((r) => r, (err: Error) => err)
  if (late instanceof Error) t.pass('no new connection once the listener closed')
  else {
    t.equal(late.status, 503)
    t.same(late.body, { error: 'the server is shutting down', code: 'shutting_down' })
  }
  t.equal(await server.exited, 0, 'SIGTERM is a clean exit')

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

t.test('closing: requests that arrive while the server closes get 503 shutting_down', async (t) => {
  const dir = tempDir(t)
  const db = await Database.open(join(dir, 'db'))
  t.teardown(() => db.close())
  const { app, origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  // A long poll keeps close() waiting briefly; meanwhile the keep-alive connection is
  // still open, so a request on it reaches the hooks.
  const agentCall = call('/api/v1/t/default/tail?wait_ms=20000')
  await new Promise((resolve) => setTimeout(resolve, 100))
  const closing = app.close()
  const during = await call('/api/v1/health').then((r) => r, (err: Error) => err)
  if (during instanceof Error) t.pass('refused at the socket')
  else {
    t.equal(during.status, 503)
    t.same(during.body, { error: 'the server is shutting down', code: 'shutting_down' })
  }
  t.equal((await agentCall).status, 200, 'the long poll completed')
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
