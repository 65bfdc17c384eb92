// R10 and the rest of the limits (docs/operations.md, "Limits") over real HTTP: a slow
// client is timed out, a query past its time limit is `query_timeout`, and the OpenAPI
// document describes every route.
import { connect } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { registeredRoutes } from '../src/http/index.js'
import { routePath } from '../src/http/openapi.js'
import { startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'limits-token-0123456789'
const auth = { authorization: `Bearer ${token}` }

t.test('R10: a client that never finishes its request is timed out and disconnected', async (t) => {
  const { origin } = await startServer(t, { token, requestTimeoutMs: 300 })
  const { port } = new URL(origin)
  const started = Date.now()
  const received = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n'))
    let text = ''
    socket.on('data', (chunk) => { text += String(chunk) })
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
    setTimeout(() => reject(new Error('the server kept the slow client')), 10_000).unref()
  })
  t.match(received, /^HTTP\/1\.1 408/, 'answered 408 Request Timeout')
  t.ok(Date.now() - started >= 250, 'not before the timeout')
})

t.test('a query past its time limit fails with query_timeout', async (t) => {
  const dir = tempDir(t)
  const { writeFileSync } = await import('node:fs')
  writeFileSync(join(dir, 's.eel'), 'collection c { id: int primary }')
  const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 's.eel')], queryTimeMsMax: -1 })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: auth, body: 'insert c {id: 1}' })
  const res = await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: auth, body: 'c' })
  t.equal(res.status, 400)
  t.match(await res.json(), { code: 'query_timeout', conflict: false })
})

t.test('the OpenAPI document describes every registered route', async (t) => {
  const { origin, app } = await startServer(t, { token })
  const res = await fetch(`${origin}/api/v1/openapi.json`, { headers: auth })
  t.equal(res.status, 200)
  const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> }
  t.match(doc.openapi, /^3\.1\./)
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${routePath(path)}`)))
  // The API's routes; the console's static files (/console/) are not part of the API.
  for (const route of registeredRoutes(app).filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && r.url.startsWith('/api/'))) {
    t.ok(documented.has(`${route.method} ${route.url}`), `${route.method} ${route.url} is documented`)
  }
  t.equal((await fetch(`${origin}/api/v1/openapi.json`)).status, 401, 'behind auth')
})
