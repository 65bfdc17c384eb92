// R13 (docs/api.md, "Origins and hosts"): cross-site requests and DNS rebinding are
// refused before routing and before authentication, for every method and for the
// WebSocket upgrade: an Origin that is not allowed, or Sec-Fetch-Site cross-site /
// same-site without one, is 403 `origin_not_allowed`; a Host that does not name the
// server is 403 `host_not_allowed`. Nothing is written and nothing is upgraded.
import t from 'tap'
import { OriginPolicy } from '../src/http/origin-policy.js'
import { networkInterfaces } from 'node:os'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { jsonBody, rawRequest, rawResponseStatus, requestText } from './helpers/raw-http.js'

const token = 'origin-host-token-0123456789abc'
const consoleOrigin = 'http://localhost:5173'
const evil = 'http://evil.example'
const insert = (id: number) => `insert users {id: ${id}, email: "e${id}", name: "x"}`

async function rows(db: Awaited<ReturnType<typeof openExampleDatabase>>): Promise<unknown[]> {
  return (await db.tenant('default').query('users')).rows
}

function upgradeRequest(port: number, target: string, headers: Record<string, string>): string {
  return requestText('GET', target, `127.0.0.1:${port}`, {
    upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers,
  }).toString('latin1').replace('Connection: close\r\n', '')
}

/** A refused upgrade: read until the server closes the connection (it must; `closed` says whether it did). */
function upgrade(port: number, target: string, headers: Record<string, string>) {
  return rawRequest(port, upgradeRequest(port, target, headers))
}

t.test('a hostile Origin is refused with 403 before routing and auth', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin, port } = await startServer(t, { token, db, consoleOrigins: [consoleOrigin] })

  // The simple request a page can send without a preflight, to the canonical and an encoded path.
  for (const path of ['/api/v1/t/default/query', '/%61pi/v1/t/default/query']) {
    for (const auth of [{}, { authorization: `Bearer ${token}` }]) {
      const res = await fetch(origin + path, { method: 'POST', headers: { origin: evil, 'content-type': 'text/plain', ...auth }, body: insert(1) })
      t.equal(res.status, 403, `text/plain POST to ${path}`)
      // The query route's error bodies all add conflict: false (docs/api.md).
      t.same(await res.json(), { error: `requests from the origin "${evil}" are not allowed; start the server with --console-origin to allow one`, code: 'origin_not_allowed', conflict: false })
      t.equal(res.headers.get('access-control-allow-origin'), null)
    }
  }
  t.same(await rows(db), [], 'nothing was written')

  const get = await fetch(`${origin}/api/v1/health?token=${token}`, { headers: { origin: evil } })
  t.equal(get.status, 403, 'a GET from a hostile origin, token or not')
  t.equal(((await get.json()) as { code: string }).code, 'origin_not_allowed')

  const preflight = await fetch(`${origin}/api/v1/t/default/query`, { method: 'OPTIONS', headers: { origin: evil, 'access-control-request-method': 'POST' } })
  t.equal(preflight.status, 403, 'a preflight from a hostile origin')
  t.equal(preflight.headers.get('access-control-allow-origin'), null)
  await preflight.arrayBuffer()

  for (const bad of ['null', 'http://127.0.0.1', `https://127.0.0.1:${port}`, `http://127.0.0.1:${port}/x`, 'http://127.0.0.1.evil.example:' + port, 'not an origin']) {
    const res = await fetch(`${origin}/api/v1/health?token=${token}`, { headers: { origin: bad } })
    t.equal(res.status, 403, `Origin: ${bad}`)
    await res.arrayBuffer()
  }
})

t.test('a WebSocket upgrade from a hostile origin is refused before the upgrade and closed', async (t) => {
  const db = await openExampleDatabase(t)
  const { port } = await startServer(t, { token, db })
  for (const target of [`/api/v1/t/default/tail?after=0&token=${token}`, '/%61pi/v1/t/default/tail?after=0', '/api/v1/t/default/tail?after=0']) {
    const res = await upgrade(port, target, { origin: evil })
    t.equal(res.status, 403, `upgrade of ${target}`)
    t.equal(jsonBody(res)?.code, 'origin_not_allowed')
    t.equal(res.closed, true, 'the server closed the refused connection itself')
  }
  // From the server's own origin, without the token: 401, also closed by the server.
  const noToken = await upgrade(port, '/api/v1/t/default/tail?after=0', { origin: `http://127.0.0.1:${port}` })
  t.equal(noToken.status, 401)
  t.equal(noToken.closed, true, 'a refused upgrade is closed by the server')
  // The encoded spelling without a token is refused like the canonical one.
  const encoded = await upgrade(port, '/%61pi/v1/t/default/tail?after=0', { origin: `http://127.0.0.1:${port}` })
  t.equal(encoded.status, 401)
  t.equal(encoded.closed, true)
  // A refused spelling is 400 before the upgrade, token or not, and closed.
  const dotted = await upgrade(port, `/api/v1/t/%2e%2e/t/default/tail?after=0&token=${token}`, { origin: `http://127.0.0.1:${port}` })
  t.equal(dotted.status, 400)
  t.equal(jsonBody(dotted)?.code, 'bad_request')
  t.equal(dotted.closed, true)
  // With the token, from the server's own origin, the upgrade happens.
  const ok = await rawResponseStatus(port, upgradeRequest(port, `/api/v1/t/default/tail?after=0&token=${token}`, { origin: `http://localhost:${port}` }))
  t.equal(ok, 101, 'the allowed upgrade')
})

t.test('Sec-Fetch-Site cross-site or same-site without an Origin is refused', async (t) => {
  const { origin } = await startServer(t, { token })
  for (const site of ['cross-site', 'same-site']) {
    const res = await fetch(`${origin}/api/v1/health?token=${token}`, { headers: { 'sec-fetch-site': site } })
    t.equal(res.status, 403, site)
    t.same(await res.json(), { error: `a ${site} request without an allowed Origin is not allowed`, code: 'origin_not_allowed', conflict: false })
  }
  for (const site of ['same-origin', 'none']) {
    const res = await fetch(`${origin}/api/v1/health?token=${token}`, { headers: { 'sec-fetch-site': site } })
    t.equal(res.status, 200, `${site} is the server's own page or the user`)
    await res.arrayBuffer()
  }
  const allowed = await fetch(`${origin}/api/v1/health?token=${token}`, { headers: { 'sec-fetch-site': 'cross-site', origin } })
  t.equal(allowed.status, 200, 'cross-site with an allowed Origin (a console elsewhere)')
  await allowed.arrayBuffer()
})

t.test('a Host that does not name the server is refused (DNS rebinding)', async (t) => {
  const db = await openExampleDatabase(t)
  const { port } = await startServer(t, { token, db, allowedHosts: ['tenantdb.lan'] })
  const send = (host: string | undefined, headers: Record<string, string> = {}, method = 'GET', body?: string, version = '1.1') => {
    const lines = [`${method} /api/v1/t/default/query HTTP/${version}`, ...(host === undefined ? [] : [`Host: ${host}`]), 'Connection: close', `Authorization: Bearer ${token}`]
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`)
    if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
    return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`)
  }
  for (const host of ['rebind.evil.example', `rebind.evil.example:${port}`, `127.0.0.1:${port + 1}`, `localhost:${port}0`, 'localhost.:' + port, `127.0.0.1.evil.example:${port}`, '', 'user@127.0.0.1']) {
    const res = await send(host, { 'content-type': 'text/plain' }, 'POST', insert(2))
    t.equal(res.status, 403, `Host: ${host}`)
    t.equal(jsonBody(res)?.code, 'host_not_allowed', `Host: ${host}`)
  }
  const none = await send(undefined, { 'content-type': 'text/plain' }, 'POST', insert(3), '1.0')
  t.equal(none.status, 403, 'an HTTP/1.0 request without Host')
  t.same(await rows(db), [], 'nothing was written')

  for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, 'tenantdb.lan', `tenantdb.lan:${port}`, `TenantDB.LAN:${port}`]) {
    const res = await send(host, { 'content-type': 'text/plain' }, 'POST', 'users | take 1')
    t.equal(res.status, 200, `Host: ${host}`)
  }
  // An --allowed-host is also an allowed origin on the server's port.
  const fromLan = await send(`tenantdb.lan:${port}`, { origin: `http://tenantdb.lan:${port}`, 'content-type': 'text/plain' }, 'POST', 'users | take 1')
  t.equal(fromLan.status, 200)
  t.equal(fromLan.headers['access-control-allow-origin'], `http://tenantdb.lan:${port}`)
  const rebound = await send(`127.0.0.1:${port}`, { origin: `http://rebind.evil.example:${port}`, 'content-type': 'text/plain' }, 'POST', insert(4))
  t.equal(rebound.status, 403)
  t.equal(jsonBody(rebound)?.code, 'origin_not_allowed')
})

t.test('the server\'s own origin and --console-origin still work', async (t) => {
  const { origin, port } = await startServer(t, { token, consoleOrigins: [consoleOrigin] })
  for (const allowed of [origin, `http://localhost:${port}`, `http://[::1]:${port}`, consoleOrigin]) {
    const res = await fetch(`${origin}/api/v1/health`, { headers: { origin: allowed, authorization: `Bearer ${token}` } })
    t.equal(res.status, 200, allowed)
    t.equal(res.headers.get('access-control-allow-origin'), allowed)
    await res.arrayBuffer()
    const preflight = await fetch(`${origin}/api/v1/t/default/query`, { method: 'OPTIONS', headers: { origin: allowed, 'access-control-request-method': 'POST' } })
    t.equal(preflight.status, 204, `preflight from ${allowed}`)
  }
})

t.test('the policy: loopback, wildcard and named listeners', async (t) => {
  const at = (address: string, family = 'IPv4') => new OriginPolicy(() => ({ address, family, port: 7070 }), ['http://localhost:5173'], ['db.example'])
  const loopback = at('127.0.0.1')
  for (const host of ['127.0.0.1:7070', 'localhost:7070', '[::1]:7070', 'localhost', 'db.example:7070', 'DB.example']) t.ok(loopback.hostAllowed(host), host)
  for (const host of ['127.0.0.2:7070', 'localhost:7071', 'evil:7070', '[::2]:7070', 'db.example:80', undefined, '0.0.0.0:7070']) t.notOk(loopback.hostAllowed(host), String(host))
  t.ok(loopback.originAllowed('http://localhost:7070'))
  t.ok(loopback.originAllowed('http://localhost:5173'), '--console-origin')
  t.ok(loopback.originAllowed('http://db.example:7070'), '--allowed-host on the port')
  t.notOk(loopback.originAllowed('http://db.example:5173'))
  t.notOk(loopback.originAllowed('https://localhost:7070'), 'the server speaks http only')

  const v6 = at('::1', 'IPv6')
  t.ok(v6.hostAllowed('[::1]:7070'))
  t.ok(v6.hostAllowed('localhost:7070'))
  t.notOk(v6.hostAllowed('evil:7070'))

  const wildcard = at('0.0.0.0')
  const local = Object.values(networkInterfaces()).flatMap((list) => list ?? []).map((i) => (i.family === 'IPv6' ? `[${i.address}]` : i.address))
  t.ok(local.length > 0)
  for (const address of local.filter((a) => !a.includes('%'))) t.ok(wildcard.hostAllowed(`${address}:7070`), `interface address ${address}`)
  t.ok(wildcard.hostAllowed('localhost:7070'))
  t.notOk(wildcard.hostAllowed('evil.example:7070'))

  const named = at('192.0.2.10')
  t.ok(named.hostAllowed('192.0.2.10:7070'), 'the listen address')
  t.notOk(named.hostAllowed('localhost:7070'), 'not loopback names for a non-loopback listener')
  t.ok(named.hostAllowed('db.example'))
})
