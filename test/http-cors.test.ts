// Cross-origin access over real HTTP (docs/api.md, "Origins and hosts"): the server's
// own origin and each console origin are allowed, never `*`; preflights are answered
// without a token; any other origin is refused with 403 before authentication
// (docs/api.md).
import t from 'tap'
import { api, startServer } from './helpers/http-server.js'

const token = 'cors-token-0123456789abcdef'
const consoleOrigin = 'http://localhost:5173'

t.test('cors: allowed origins get the headers; others none; never *', async (t) => {
  const { origin } = await startServer(t, { token, consoleOrigins: [consoleOrigin] })
  const call = api(origin, token)
  const port = new URL(origin).port
  for (const allowed of [origin, `http://localhost:${port}`, consoleOrigin]) {
    const res = await call('/api/v1/health', { headers: { origin: allowed } })
    t.equal(res.status, 200, allowed)
    t.equal(res.headers.get('access-control-allow-origin'), allowed, allowed)
    t.equal(res.headers.get('access-control-expose-headers'), 'Authorization, Content-Type, X-Service-Token, Service-Snapshot', allowed)
    t.match(res.headers.get('vary'), /Origin/, allowed)
  }
  for (const refused of ['http://evil.example', 'http://localhost:5174', `https://127.0.0.1:${port}`, 'null']) {
    const res = await call('/api/v1/health', { headers: { origin: refused } })
    t.equal(res.status, 403, refused)
    t.equal(res.body.code, 'origin_not_allowed', refused)
    t.equal(res.headers.get('access-control-allow-origin'), null, refused)
    t.equal(res.headers.get('access-control-expose-headers'), null, refused)
  }
  const denied = await fetch(`${origin}/api/v1/health`, { headers: { origin: consoleOrigin } })
  t.equal(denied.status, 401, 'CORS is not auth')
  t.equal(denied.headers.get('access-control-allow-origin'), consoleOrigin, 'the console can read the 401')
})

t.test('cors: preflight from an allowed origin is answered without a token; others are not', async (t) => {
  const { origin } = await startServer(t, { token, consoleOrigins: [consoleOrigin] })
  const preflight = (from: string, path = '/api/v1/t/default/query') => fetch(origin + path, {
    method: 'OPTIONS',
    headers: { origin: from, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, service-snapshot' },
  })
  const ok = await preflight(consoleOrigin)
  t.equal(ok.status, 204)
  t.equal(ok.headers.get('access-control-allow-origin'), consoleOrigin)
  t.equal(ok.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS')
  t.equal(ok.headers.get('access-control-allow-headers'), 'Authorization, Content-Type, X-Service-Token, Service-Snapshot')
  t.equal(ok.headers.get('access-control-expose-headers'), 'Authorization, Content-Type, X-Service-Token, Service-Snapshot')
  t.equal((await preflight(origin, '/api/v1/health')).status, 204, 'the server\'s own origin')
  const evil = await preflight('http://evil.example')
  t.equal(evil.status, 403, 'a refused origin gets no preflight answer')
  t.match(await evil.json(), { code: 'origin_not_allowed' })
  t.equal(evil.headers.get('access-control-allow-origin'), null)
  const bare = await fetch(`${origin}/api/v1/health`, { method: 'OPTIONS', headers: { origin: consoleOrigin } })
  t.equal(bare.status, 401, 'an OPTIONS that is not a preflight still needs the token')
  const noOrigin = await fetch(`${origin}/api/v1/health`, { method: 'OPTIONS', headers: { 'access-control-request-method': 'GET' } })
  t.equal(noOrigin.status, 401)
})
