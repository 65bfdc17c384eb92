// R8: every route the server registers under /api, with every method, refuses a
// request without the right token (401) and, with the token in each place docs/api.md
// allows, answers exactly its own success status (never 429 or a 5xx passing for "not
// 401"). A registered route missing from the table below fails the test, so no route
// can be added without deciding its auth and its success status.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { registeredRoutes } from '../src/http/index.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'r8-token-0123456789abcdef'
const wrongSameLength = token.replace(/.$/, 'X')

/**
 * Every route: whether it needs the token ('auth') or is public, and for the /api
 * routes the request with which it succeeds and its exact success status (diff needs
 * a snapshot, ops a tenant to resume). A route added without a row here fails.
 */
interface Expectation { access: 'auth' | 'public'; success: number; query?: string; body?: string }
const expectations: Record<string, Expectation> = {
  'GET /api/v1/health': { access: 'auth', success: 200 },
  'GET /api/v1/health/detail': { access: 'auth', success: 200 },
  'GET /api/v1/stats': { access: 'auth', success: 200 },
  'GET /api/v1/tenants': { access: 'auth', success: 200 },
  'GET /api/v1/t/:tenant/collections': { access: 'auth', success: 200 },
  'GET /api/v1/t/:tenant/schema': { access: 'auth', success: 200 },
  'GET /api/v1/t/:tenant/snapshots': { access: 'auth', success: 200 },
  'GET /api/v1/t/:tenant/diff': { access: 'auth', success: 200, query: 'from=before' },
  'GET /api/v1/t/:tenant/tail': { access: 'auth', success: 200, query: 'after=0' },
  'POST /api/v1/t/:tenant/query': { access: 'auth', success: 200, body: '{"query": "users | take 1"}' },
  'POST /api/v1/t/:tenant/ops': { access: 'auth', success: 200, body: '{"op": "resume", "name": "default"}' },
  'GET /api/v1/schema.eel': { access: 'auth', success: 200 },
  'GET /api/v1/openapi.json': { access: 'auth', success: 200 },
  'GET /api/v1/metrics': { access: 'auth', success: 200 },
  'GET /api/v1/trends': { access: 'auth', success: 200 },
  // An online backup: the whole directory as a tar archive (its body is drained).
  'GET /api/v1/backup': { access: 'auth', success: 200 },
  // The operator console's static files (docs/api.md): loading them needs no token;
  // /console redirects to /console/.
  'GET /console': { access: 'public', success: 301 },
  'GET /console/*': { access: 'public', success: 200 },
}

type Variant = [name: string, url: (path: string) => string, headers: Record<string, string>, refused: boolean]
const variants: Variant[] = [
  ['no token', (p) => p, {}, true],
  ['wrong token of equal length (query)', (p) => `${p}?token=${wrongSameLength}`, {}, true],
  ['wrong token of equal length (bearer)', (p) => p, { authorization: `Bearer ${wrongSameLength}` }, true],
  ['wrong length (header)', (p) => p, { 'x-service-token': 'short' }, true],
  ['right token in ?token=', (p) => `${p}?token=${token}`, {}, false],
  ['right token as Bearer', (p) => p, { authorization: `Bearer ${token}` }, false],
  ['right token as X-Service-Token', (p) => p, { 'x-service-token': token }, false],
]

const withQuery = (path: string, ...parts: string[]) => {
  const query = parts.filter((p) => p !== '').join('&')
  return query === '' ? path : `${path}?${query}`
}

t.test('R8: every /api route and method needs the token, accepted in each place', async (t) => {
  const db = await openExampleDatabase(t)
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  const consoleDir = join(tempDir(t), 'console')
  mkdirSync(consoleDir)
  writeFileSync(join(consoleDir, 'index.html'), '<!doctype html>')
  // One server to learn the routes; a fresh server per route below keeps the
  // failed-auth throttle (20 wrong tokens a minute per address) out of the way.
  const { app } = await startServer(t, { token, db, consoleDir })
  const routes = registeredRoutes(app).filter((r) => r.method !== 'HEAD' || !registeredRoutes(app).some((g) => g.method === 'GET' && g.url === r.url))
  const keys = routes.map((r) => `${r.method} ${r.url}`)
  for (const key of keys) t.ok(key in expectations, `${key} has an auth expectation in this test`)
  for (const key of Object.keys(expectations)) t.ok(keys.includes(key), `${key} is still registered`)
  for (const key of keys) t.ok(key.split(' ')[1]?.startsWith('/api/') === (expectations[key]?.access === 'auth'), `${key}: auth exactly under /api/`)

  for (const route of routes.filter((r) => expectations[`${r.method} ${r.url}`]?.access === 'public')) {
    const { origin } = await startServer(t, { token, db, consoleDir })
    const res = await fetch(origin + route.url.replace('*', 'index.html'), { method: route.method, redirect: 'manual' })
    t.equal(res.status, expectations[`${route.method} ${route.url}`]?.success, `${route.method} ${route.url}: answers without a token`)
    t.equal(res.headers.get('www-authenticate'), null, `${route.method} ${route.url}: asks for no token`)
    await res.arrayBuffer()
  }

  for (const route of routes.filter((r) => r.url.startsWith('/api'))) {
    const { origin } = await startServer(t, { token, db, consoleDir })
    const path = route.url.replace(':tenant', 'default')
    const expected = expectations[`${route.method} ${route.url}`]
    if (expected === undefined) continue // failed above: no expectation
    const { query = '', body, success } = expected
    for (const [name, url, headers, refused] of variants) {
      const init: RequestInit = { method: route.method, headers: { ...headers, 'content-type': 'application/json' } }
      if (body !== undefined) init.body = body
      const tokenQuery = url('').replace(/^\?/, '')
      const res = await fetch(origin + withQuery(path, query, tokenQuery), init)
      const label = `${route.method} ${route.url}: ${name}`
      if (refused) {
        t.equal(res.status, 401, label)
        t.equal(res.headers.get('www-authenticate'), 'Bearer', label)
      } else {
        t.equal(res.status, success, `${label}: the route's own answer`)
      }
      await res.arrayBuffer()
    }
  }
})
