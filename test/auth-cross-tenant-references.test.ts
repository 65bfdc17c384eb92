// A tenant token and the tenants it does not open (docs/api.md, "Access"), wherever a
// request can name a tenant: the path's :tenant of every route, and every parameter
// that carries a tenant or a `tenant@snapshot` reference: diff's `from` and `to`, the
// query route's Service-Snapshot header, tenant operations in Eel text (text and JSON
// bodies), the ops body's `name` (fork, restore and delete sources `t@s` included), the
// tail's poll and WebSocket forms. For tokens of every scope of `acme`, each request
// naming `globex` (which exists, with a snapshot `gsnap`) is answered exactly as the
// same request naming a tenant that does not exist: same status, same body but for the
// name. A control with the service token shows that the requests do tell the two apart
// when the credential opens both, so the comparison can fail.
import t from 'tap'
import { registeredRoutes } from '../src/http/index.js'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'
import { rawRequest, requestText } from './helpers/raw-http.js'
import { issue } from './helpers/tenant-tokens.js'

const service = 'cross-tenant-references-service-token-0123'
const schema = 'collection users { id: int primary, name: string }'
const hidden = 'globex'
const absent = 'nxtenant'

interface Probe {
  /** What it names the tenant T in. */
  what: string
  method: string
  /** The route pattern it reaches (the path's :tenant is T, or acme). */
  route: string
  path: string
  body?: string
  json?: unknown
  headers?: Record<string, string>
  /** A WebSocket upgrade (the token as ?token=). */
  upgrade?: boolean
  /** The scopes that reach the access check of T (lower ones are refused 403 by the route first, alike for both). */
  reaches: ReadonlyArray<'read' | 'write' | 'admin'>
  /** The answer it must get from those scopes, when not 404 unknown_tenant (T is not a reference to an existing tenant). */
  otherwise?: { status: number; code: string }
}

const all = ['read', 'write', 'admin'] as const

/** Every request that names tenant `T`: the template is filled in with `globex`, then with a tenant that does not exist. */
function probes(T: string): Probe[] {
  const eel = (text: string): Probe[] => [
    { what: `Eel text (JSON body): ${text}`, method: 'POST', route: '/api/v1/t/:tenant/query', path: '/api/v1/t/acme/query', json: { query: text }, reaches: all },
    { what: `Eel text (text body): ${text}`, method: 'POST', route: '/api/v1/t/:tenant/query', path: '/api/v1/t/acme/query', body: text, reaches: all },
  ]
  const op = (json: Record<string, string>, otherwise?: Probe['otherwise']): Probe => ({
    what: `ops body ${JSON.stringify(json)}`, method: 'POST', route: '/api/v1/t/:tenant/ops', path: '/api/v1/t/acme/ops', json, reaches: ['admin'], ...(otherwise === undefined ? {} : { otherwise }),
  })
  return [
    // The path's :tenant, on every route that has one.
    { what: 'path', method: 'GET', route: '/api/v1/t/:tenant/collections', path: `/api/v1/t/${T}/collections`, reaches: all },
    { what: 'path', method: 'GET', route: '/api/v1/t/:tenant/schema', path: `/api/v1/t/${T}/schema`, reaches: all },
    { what: 'path', method: 'GET', route: '/api/v1/t/:tenant/snapshots', path: `/api/v1/t/${T}/snapshots`, reaches: all },
    { what: 'path', method: 'GET', route: '/api/v1/t/:tenant/usage', path: `/api/v1/t/${T}/usage`, reaches: all },
    { what: 'path', method: 'GET', route: '/api/v1/t/:tenant/diff', path: `/api/v1/t/${T}/diff?from=gsnap`, reaches: all },
    { what: 'path', method: 'POST', route: '/api/v1/t/:tenant/query', path: `/api/v1/t/${T}/query`, json: { query: 'users | count' }, reaches: all },
    { what: 'path', method: 'POST', route: '/api/v1/t/:tenant/ops', path: `/api/v1/t/${T}/ops`, json: { op: 'snapshot', target: 'probe' }, reaches: all },
    { what: 'path', method: 'POST', route: '/api/v1/t/:tenant/ops', path: `/api/v1/t/${T}/ops`, json: { op: 'compact' }, reaches: all },
    { what: 'path', method: 'GET', route: '/api/v1/t/:tenant/tokens', path: `/api/v1/t/${T}/tokens`, reaches: all },
    { what: 'path', method: 'POST', route: '/api/v1/t/:tenant/tokens', path: `/api/v1/t/${T}/tokens`, json: { scope: 'read' }, reaches: all },
    { what: 'path', method: 'DELETE', route: '/api/v1/t/:tenant/tokens/:id', path: `/api/v1/t/${T}/tokens/0123456789abcdef`, reaches: all },
    { what: 'path (poll)', method: 'GET', route: '/api/v1/t/:tenant/tail', path: `/api/v1/t/${T}/tail?after=0`, reaches: all },
    { what: 'path (WebSocket)', method: 'GET', route: '/api/v1/t/:tenant/tail', path: `/api/v1/t/${T}/tail?after=0`, upgrade: true, reaches: all },
    // The query string: diff's `from` takes tenant@snapshot of another tenant.
    { what: 'diff from=T@gsnap', method: 'GET', route: '/api/v1/t/:tenant/diff', path: `/api/v1/t/acme/diff?from=${T}@gsnap&collection=users`, reaches: all },
    { what: 'diff from=T@nosnap', method: 'GET', route: '/api/v1/t/:tenant/diff', path: `/api/v1/t/acme/diff?from=${T}@nosnap`, reaches: all },
    { what: 'diff from=T@gsnap, bad collection', method: 'GET', route: '/api/v1/t/:tenant/diff', path: `/api/v1/t/acme/diff?from=${T}@gsnap&collection=nope`, reaches: all },
    { what: 'diff from=T@gsnap given twice', method: 'GET', route: '/api/v1/t/:tenant/diff', path: `/api/v1/t/acme/diff?from=${T}@gsnap&from=${T}@gsnap`, reaches: all },
    // `to` is a snapshot of the path tenant: a reference there is an unknown snapshot of acme.
    { what: 'diff to=T@gsnap', method: 'GET', route: '/api/v1/t/:tenant/diff', path: `/api/v1/t/acme/diff?from=asnap&to=${T}@gsnap`, reaches: all, otherwise: { status: 404, code: 'unknown_snapshot' } },
    // A header: Service-Snapshot names a snapshot of the path tenant.
    { what: 'Service-Snapshot: T@gsnap', method: 'POST', route: '/api/v1/t/:tenant/query', path: '/api/v1/t/acme/query', json: { query: 'users | count' }, headers: { 'service-snapshot': `${T}@gsnap` }, reaches: all, otherwise: { status: 404, code: 'unknown_snapshot' } },
    // Tenant operations in Eel text (not run by the query route, but they name a tenant).
    ...eel(`tenant fork ${T} as probe`),
    ...eel(`tenant fork ${T}@gsnap as probe`),
    ...eel(`tenant snapshot ${T} as probe`),
    ...eel(`tenant restore ${T}@gsnap`),
    ...eel(`tenant suspend ${T}`),
    ...eel(`tenant resume ${T}`),
    ...eel(`tenant compact ${T}`),
    ...eel(`tenant delete ${T}`),
    ...eel(`tenant delete ${T}@gsnap`),
    // `create` names a new tenant, no reference: refused as every tenant operation in a query.
    ...eel(`tenant create ${T}`).map((p) => ({ ...p, otherwise: { status: 400, code: 'not_allowed_here' } })),
    // The ops body.
    op({ op: 'fork', name: T, target: 'probe' }),
    op({ op: 'fork', name: `${T}@gsnap`, target: 'probe' }),
    op({ op: 'snapshot', name: T, target: 'probe' }),
    op({ op: 'restore', name: `${T}@gsnap` }),
    op({ op: 'suspend', name: T }),
    op({ op: 'resume', name: T }),
    op({ op: 'delete', name: T }),
    op({ op: 'delete', name: `${T}@gsnap` }),
    // `create` names a new tenant, no reference, and needs the service token. (`compact`
    // always works on the path tenant: a name given is not used.)
    op({ op: 'create', name: T }, { status: 403, code: 'forbidden' }),
  ]
}

interface Answer {
  status: number
  /** The body with the tenant's name replaced by T. */
  body: string
}

t.test('auth-cross-tenant-references: a tenant a token does not open is answered as one that does not exist, wherever it is named', async (t) => {
  const { db } = await openDatabase(t, schema)
  const { app, origin, port } = await startServer(t, { token: service, db })
  const admin = api(origin, service)
  for (const name of ['acme', hidden]) {
    t.equal((await admin('/api/v1/t/default/ops', { json: { op: 'create', name } })).status, 200)
    t.equal((await admin(`/api/v1/t/${name}/query`, { json: { query: `insert users {id: 1, name: "${name}-secret-row"}` } })).status, 200)
  }
  t.equal((await admin(`/api/v1/t/${hidden}/ops`, { json: { op: 'snapshot', target: 'gsnap' } })).status, 200)
  t.equal((await admin('/api/v1/t/acme/ops', { json: { op: 'snapshot', target: 'asnap' } })).status, 200)

  // Every route with a :tenant, every method, is probed through its path.
  const probed = new Set(probes(hidden).filter((p) => p.what.startsWith('path')).map((p) => `${p.method} ${p.route}`))
  for (const route of registeredRoutes(app).filter((r) => r.url.includes(':tenant') && r.method !== 'HEAD')) {
    t.ok(probed.has(`${route.method} ${route.url}`), `${route.method} ${route.url} is probed through its path`)
  }

  const send = async (probe: Probe, secret: string): Promise<Answer> => {
    const name = JSON.stringify([probe.path, probe.json, probe.body, probe.headers]).includes(hidden) ? hidden : absent
    const normal = (text: string) => text.replaceAll(name, 'T')
    if (probe.upgrade === true) {
      const res = await rawRequest(port, requestText('GET', `${probe.path}&token=${secret}`, `127.0.0.1:${port}`, {
        upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      }).toString('latin1').replace('Connection: close\r\n', ''), 5000)
      return { status: res.status, body: normal(res.body) }
    }
    const headers: Record<string, string> = { authorization: `Bearer ${secret}`, ...probe.headers }
    let body: string | undefined = probe.body
    if (probe.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(probe.json)
    } else if (body !== undefined) headers['content-type'] = 'text/plain'
    const res = await fetch(origin + probe.path, { method: probe.method, headers, ...(body === undefined ? {} : { body }) })
    return { status: res.status, body: normal(await res.text()) }
  }

  // The control: the service token opens both, and these requests tell them apart.
  const missingProbes = probes(absent)
  for (const [i, probe] of probes(hidden).entries()) {
    if (probe.method !== 'GET' || probe.upgrade === true) continue
    const there = await send(probe, service)
    const missing = await send(missingProbes[i] as Probe, service)
    if (probe.what === 'diff from=T@gsnap') t.equal(there.status, 200, 'the service token reads globex@gsnap through diff')
    if (probe.what === 'path') t.not(`${there.status} ${there.body}`, `${missing.status} ${missing.body}`, `control: the service token tells globex from a missing tenant (${probe.path})`)
  }

  for (const scope of all) {
    const secret = (await issue(db, 'acme', scope)).token
    const there = probes(hidden)
    const missing = probes(absent)
    for (const [i, probe] of there.entries()) {
      const label = `${scope} token of acme, ${probe.what}: ${probe.method} ${probe.path}${probe.upgrade === true ? ' (upgrade)' : ''}`
      const a = await send(probe, secret)
      const b = await send(missing[i] as Probe, secret)
      t.same(a, b, `${label}: answered as for a tenant that does not exist`)
      if (!probe.reaches.includes(scope)) {
        t.equal(a.status, 403, `${label}: the route's scope is refused first`)
        continue
      }
      const expected = probe.otherwise ?? { status: 404, code: 'unknown_tenant' }
      t.equal(a.status, expected.status, `${label}: ${expected.status}`)
      t.equal((JSON.parse(a.body) as { code: string }).code, expected.code, `${label}: ${expected.code}`)
      if (expected.code === 'unknown_tenant') t.equal((JSON.parse(a.body) as { error: string }).error, "no tenant named 'T'", `${label}: the sentence of an unknown tenant`)
      t.notOk(a.body.includes('secret-row'), `${label}: none of globex's rows in the body`)
    }
  }

  // Nothing above changed globex: it has its row, its snapshot, and is active.
  t.match((await admin(`/api/v1/t/${hidden}/query`, { json: { query: 'users | count' } })).body, { rows: [[1]] })
  t.match((await admin(`/api/v1/t/${hidden}/snapshots`)).body, { snapshots: [{ name: 'gsnap' }] })
  t.equal((await admin('/api/v1/tenants')).body.tenants.filter((x: { name: string }) => x.name === 'probe').length, 0, 'no fork was made')
})
