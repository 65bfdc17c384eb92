// R8: every route the server registers, with every method, over real HTTP, answers each
// credential with exactly the status its declared access gives (docs/api.md, "Access"):
// no token, a wrong one, the service token (in each place docs/api.md allows), a token of
// this tenant of each scope, a token of another tenant, an expired token, a revoked
// token, and a token of a deleted tenant. A refusal is exactly 401, 403 or 404 as the
// table says, a success exactly the route's own status (never 429 or a 5xx passing for
// "not 401"). A registered route missing from the table below fails the test, so no
// route can be added without deciding who may call it; the methods a path does not
// take answer 401 without a credential and 405 with any valid one.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { registeredRoutes } from '../src/http/index.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { issue, tokenSet } from './helpers/tenant-tokens.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'r8-token-0123456789abcdef'
const wrongSameLength = token.replace(/.$/, 'X')

type Scope = 'read' | 'write' | 'admin'
type Needs = 'public' | 'any' | 'service' | { tenant: Scope | 'service' }

/**
 * Every route: who may call it (as docs/api.md "Access" says), the request with which
 * it succeeds, and its exact success status (diff needs a snapshot, ops a tenant to
 * resume, a revocation a token to revoke: `:id` is a fresh token's). A route added
 * without a row here fails.
 */
interface Expectation { needs: Needs; success: number; query?: string; body?: string }
const expectations: Record<string, Expectation> = {
  'GET /api/v1/health': { needs: 'any', success: 200 },
  'GET /api/v1/health/detail': { needs: 'service', success: 200 },
  'GET /api/v1/stats': { needs: 'service', success: 200 },
  'GET /api/v1/tenants': { needs: 'service', success: 200 },
  'GET /api/v1/access': { needs: 'any', success: 200 },
  'GET /api/v1/t/:tenant/collections': { needs: { tenant: 'read' }, success: 200 },
  'GET /api/v1/t/:tenant/schema': { needs: { tenant: 'read' }, success: 200 },
  'GET /api/v1/t/:tenant/snapshots': { needs: { tenant: 'read' }, success: 200 },
  'GET /api/v1/t/:tenant/usage': { needs: { tenant: 'read' }, success: 200 },
  'GET /api/v1/t/:tenant/diff': { needs: { tenant: 'read' }, success: 200, query: 'from=before' },
  'GET /api/v1/t/:tenant/tail': { needs: { tenant: 'read' }, success: 200, query: 'after=0' },
  // A query that reads; one that writes needs a write token (auth-tenant-tokens.test.ts).
  'POST /api/v1/t/:tenant/query': { needs: { tenant: 'read' }, success: 200, body: '{"query": "users | take 1"}' },
  'POST /api/v1/t/:tenant/ops': { needs: { tenant: 'admin' }, success: 200, body: '{"op": "resume", "name": "default"}' },
  'POST /api/v1/t/:tenant/tokens': { needs: { tenant: 'service' }, success: 201, body: '{"scope": "read"}' },
  'GET /api/v1/t/:tenant/tokens': { needs: { tenant: 'service' }, success: 200 },
  'DELETE /api/v1/t/:tenant/tokens/:id': { needs: { tenant: 'service' }, success: 200 },
  'GET /api/v1/schema.eel': { needs: 'any', success: 200 },
  'GET /api/v1/openapi.json': { needs: 'any', success: 200 },
  'GET /api/v1/metrics': { needs: 'service', success: 200 },
  'GET /api/v1/trends': { needs: 'service', success: 200 },
  // An online backup: the whole directory as a tar archive (its body is drained).
  'GET /api/v1/backup': { needs: 'service', success: 200 },
  // The operator console's static files (docs/api.md): loading them needs no token;
  // /console redirects to /console/.
  'GET /console': { needs: 'public', success: 301 },
  'GET /console/*': { needs: 'public', success: 200 },
}

/** A credential, and what it is. */
type Kind = 'none' | 'wrong' | 'service' | Scope | 'other' | 'expired' | 'revoked' | 'deleted'
type Place = 'query' | 'bearer' | 'header'
interface Credential { kind: Kind; place: Place; secret: string }

const rank: Record<Scope, number> = { read: 1, write: 2, admin: 3 }

/** The status `needs` gives credential `kind`, `success` when it is let through. */
function expectedStatus(needs: Needs, kind: Kind, success: number): number {
  if (needs === 'public') return success
  if (['none', 'wrong', 'expired', 'revoked', 'deleted'].includes(kind)) return 401
  if (kind === 'service' || needs === 'any') return success
  if (needs === 'service') return 403
  if (kind === 'other') return 404
  if (needs.tenant === 'service') return 403
  return rank[kind as Scope] >= rank[needs.tenant] ? success : 403
}

const withQuery = (path: string, ...parts: string[]) => {
  const query = parts.filter((p) => p !== '').join('&')
  return query === '' ? path : `${path}?${query}`
}

function request(origin: string, method: string, path: string, query: string, credential: Credential | null, body?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  let tokenQuery = ''
  if (credential !== null) {
    if (credential.place === 'query') tokenQuery = `token=${encodeURIComponent(credential.secret)}`
    else if (credential.place === 'bearer') headers.authorization = `Bearer ${credential.secret}`
    else headers['x-service-token'] = credential.secret
  }
  const init: RequestInit = { method, headers, redirect: 'manual' }
  if (body !== undefined) init.body = body
  return fetch(origin + withQuery(path, query, tokenQuery), init)
}

t.test('R8: every route and method answers each credential as its declared access says', async (t) => {
  const db = await openExampleDatabase(t)
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  const tokens = await tokenSet(db, 'default', 'other')
  const consoleDir = join(tempDir(t), 'console')
  mkdirSync(consoleDir)
  writeFileSync(join(consoleDir, 'index.html'), '<!doctype html>')
  // One server to learn the routes; a fresh server per route below keeps the
  // failed-auth throttle (20 wrong tokens a minute per address) out of the way.
  const { app } = await startServer(t, { token, db, consoleDir })
  const routes = registeredRoutes(app)
  const get = (url: string) => expectations[`GET ${url}`]
  const expectationOf = (r: { method: string; url: string }) => expectations[`${r.method} ${r.url}`] ?? (r.method === 'HEAD' ? get(r.url) : undefined)
  const keys = routes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`)
  for (const key of keys) t.ok(key in expectations, `${key} has an access expectation in this test`)
  for (const key of Object.keys(expectations)) t.ok(keys.includes(key), `${key} is still registered`)
  for (const r of routes.filter((r) => r.method === 'HEAD')) t.ok(get(r.url) !== undefined, `HEAD ${r.url} is the HEAD of a GET in the table`)
  for (const r of routes) {
    t.ok(r.url.startsWith('/api/') === (expectationOf(r)?.needs !== 'public'), `${r.method} ${r.url}: a credential needed exactly under /api/`)
  }

  const credentials: Credential[] = []
  const places: Place[] = ['query', 'bearer', 'header']
  for (const place of places) {
    credentials.push({ kind: 'wrong', place, secret: place === 'header' ? 'short' : wrongSameLength })
    credentials.push({ kind: 'service', place, secret: token })
    for (const kind of ['read', 'write', 'admin', 'other', 'expired', 'revoked', 'deleted'] as const) credentials.push({ kind, place, secret: tokens[kind] })
  }

  for (const route of routes) {
    const expected = expectationOf(route)
    if (expected === undefined) continue // failed above: no expectation
    const { origin } = await startServer(t, { token, db, consoleDir })
    const { query = '', body, success, needs } = expected
    const sent = route.method === 'HEAD' ? undefined : body
    if (needs === 'public') {
      const res = await request(origin, route.method, route.url.replace('*', 'index.html'), '', null)
      t.equal(res.status, success, `${route.method} ${route.url}: answers without a token`)
      t.equal(res.headers.get('www-authenticate'), null, `${route.method} ${route.url}: asks for no token`)
      await res.arrayBuffer()
      continue
    }
    for (const credential of [null, ...credentials]) {
      const kind = credential?.kind ?? 'none'
      const status = expectedStatus(needs, kind, success)
      // A revocation that succeeds revokes a token made for it; a refused one names it too.
      const id = route.url.includes(':id') ? (await issue(db, 'default', 'read')).id : ''
      const path = route.url.replace(':tenant', 'default').replace(':id', id)
      const res = await request(origin, route.method, path, query, credential, sent)
      const label = `${route.method} ${route.url}: ${kind}${credential === null ? '' : ` (${credential.place})`}`
      t.equal(res.status, status, label)
      if (status === 401) t.equal(res.headers.get('www-authenticate'), 'Bearer', `${label}: asks for a token`)
      if (status === 403 || status === 404) {
        const answer = route.method === 'HEAD' ? null : await res.json() as { code: string; error: string }
        if (answer !== null) t.equal(answer.code, status === 403 ? 'forbidden' : 'unknown_tenant', `${label}: ${answer.error}`)
        if (status === 404 && answer !== null) t.equal(answer.error, "no tenant named 'default'", `${label}: the sentence an unknown tenant gets`)
      }
      await res.arrayBuffer().catch(() => undefined)
    }
  }

  // Every method a path does not take: 401 without a credential, 405 with any valid one.
  const probes = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']
  for (const url of new Set(routes.map((r) => r.url))) {
    if (!url.startsWith('/api/')) continue
    const taken = routes.filter((r) => r.url === url).map((r) => r.method)
    const { origin } = await startServer(t, { token, db, consoleDir })
    const path = url.replace(':tenant', 'default').replace(':id', '0123456789abcdef')
    for (const method of probes.filter((m) => !taken.includes(m))) {
      for (const credential of [null, ...credentials.filter((c) => c.place === 'bearer' && ['service', 'read', 'other'].includes(c.kind))]) {
        const res = await request(origin, method, path, '', credential)
        t.equal(res.status, credential === null ? 401 : 405, `${method} ${url}: ${credential?.kind ?? 'none'}`)
        await res.arrayBuffer()
      }
    }
  }
})
