// docs/api.md, "Errors": every answer is the documented JSON error body, including
// those Node's parser gives before fastify sees a request. A known path under a method
// it does not take is 405 `method_not_allowed` with `Allow` (after authentication, like
// every route); a method the parser refuses is 405 too; a request that is not received
// in time is 408 `request_timeout`; oversized headers 431; a malformed request 400.
import t from 'tap'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startServer } from './helpers/http-server.js'
import { jsonBody, rawRequest, requestText } from './helpers/raw-http.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'shapes-token-0123456789abcdef'

t.test('405 with Allow for a known path under another method; 404 for unknown paths', async (t) => {
  const consoleDir = join(tempDir(t), 'console')
  mkdirSync(consoleDir)
  writeFileSync(join(consoleDir, 'index.html'), '<!doctype html>')
  const { port } = await startServer(t, { token, consoleDir })
  const send = (method: string, path: string, auth = true, body?: string) => rawRequest(port, requestText(method, path, `127.0.0.1:${port}`,
    { ...(auth ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body))

  const cases: Array<[method: string, path: string, allow: string]> = [
    ['TRACE', '/api/v1/health', 'GET, HEAD'],
    ['DELETE', '/api/v1/tenants', 'GET, HEAD'],
    ['POST', '/api/v1/t/default/collections', 'GET, HEAD'],
    ['PUT', '/api/v1/t/default/ops', 'POST'],
    ['GET', '/api/v1/t/default/query', 'POST'],
    ['QUERY', '/api/v1/t/default/query', 'POST'],
    ['OPTIONS', '/api/v1/t/default/tail', 'GET, HEAD'],
    ['DELETE', '/console/index.html', 'GET, HEAD'],
  ]
  for (const [method, path, allow] of cases) {
    const res = await send(method, path, true, method === 'QUERY' || method === 'PUT' ? '{}' : undefined)
    t.equal(res.status, 405, `${method} ${path}`)
    t.equal(res.headers.allow, allow, `${method} ${path}: Allow`)
    t.same(jsonBody(res), { error: `${method} is not allowed on ${path}; allowed: ${allow}`, code: 'method_not_allowed', conflict: false })
    const anonymous = await send(method, path, false)
    t.equal(anonymous.status, 401, `${method} ${path} without the token is 401: only a matched route may be public`)
    t.equal(anonymous.headers.allow, undefined)
  }
  for (const [method, path] of [['GET', '/api/v1/nowhere'], ['TRACE', '/api/v2/health'], ['POST', '/']]) {
    const res = await send(method as string, path as string)
    t.equal(res.status, 404, `${method} ${path}`)
    t.same(jsonBody(res), { error: `no route ${method} ${path}`, code: 'not_found', conflict: false })
  }
})

t.test('a method the parser refuses is 405 in the JSON body, with Allow', async (t) => {
  const { port } = await startServer(t, { token })
  for (const [method, path, allow] of [['FOO', '/api/v1/health', 'GET, HEAD'], ['BREW', '/api/v1/t/default/query', 'POST'], ['get', '/api/v1/stats', 'GET, HEAD'], ['FOO', '/api/v1/nowhere', '']] as const) {
    const res = await rawRequest(port, requestText(method, path, `127.0.0.1:${port}`, { authorization: `Bearer ${token}` }))
    t.equal(res.status, 405, `${method} ${path}`)
    t.equal(res.headers.allow, allow, `${method} ${path}: Allow`)
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    t.same(jsonBody(res), { error: `the method ${JSON.stringify(method)} is not supported; allowed on ${path}: ${allow || 'none'}`, code: 'method_not_allowed', conflict: false })
    t.equal(res.closed, true, 'the connection is closed')
  }
  const refused = await rawRequest(port, requestText('FOO', '/%2e%2e/api/v1/health', `127.0.0.1:${port}`))
  t.equal(refused.status, 400, 'a refused path under an unknown method')
  t.equal(jsonBody(refused)?.code, 'bad_request')
})

t.test('408 request_timeout for a client that never finishes its request', async (t) => {
  const { port } = await startServer(t, { token, requestTimeoutMs: 300 })
  const started = Date.now()
  const stalled = (path: string) => rawRequest(port, `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Length: 100\r\n\r\nusers`)
  const res = await stalled('/api/v1/t/default/query')
  t.equal(res.status, 408)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  // Every error body carries conflict (docs/api.md, "Errors"), this one too.
  t.same(jsonBody(res), { error: 'the request was not received in time', code: 'request_timeout', conflict: false })
  t.equal(res.closed, true, 'and disconnected')
  t.ok(Date.now() - started >= 250, 'not before the timeout')
  const ops = await stalled('/api/v1/t/default/ops')
  t.equal(ops.status, 408)
  t.same(jsonBody(ops), { error: 'the request was not received in time', code: 'request_timeout', conflict: false }, 'and another route\'s alike')
})

t.test('431 headers_too_large and 400 for a malformed request, as JSON', async (t) => {
  const { port } = await startServer(t, { token })
  const large = await rawRequest(port, requestText('GET', '/api/v1/health', `127.0.0.1:${port}`, { 'x-filler': 'a'.repeat(20_000) }))
  t.equal(large.status, 431)
  t.same(jsonBody(large), { error: 'the request headers are too large', code: 'headers_too_large', conflict: false })
  for (const garbage of ['GET /api/v1/health HTTP/9.9\r\n\r\n', 'GET /api/v1/health HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n', 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', '\x01\x02\x03\r\n\r\n']) {
    const res = await rawRequest(port, garbage)
    t.equal(res.status, 400, JSON.stringify(garbage))
    t.equal(jsonBody(res)?.code, 'bad_request', JSON.stringify(garbage))
  }
})
