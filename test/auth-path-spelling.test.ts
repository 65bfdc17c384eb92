// R13 (docs/api.md, "Paths"): the token check cannot be passed by spelling a path
// differently. Over raw sockets (nothing normalises the request line), every registered
// route × every method × many spellings: percent-encoded characters in every position
// (upper- and lower-case hex), whole encoded segments, upper case, double and trailing
// slashes, dot segments raw and encoded, encoded slashes and backslashes, encoded `%`,
// `?` and control bytes, absolute- and authority-form targets. Without the token no
// /api spelling answers anything but 400 (a refused spelling) or 401, and no write
// happens; with it, every spelling that decodes to the route's path reaches the route.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { AccessTokens } from '../src/database/index.js'
import { registeredRoutes } from '../src/http/index.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { jsonBody, rawRequest, requestText, type RawResponse } from './helpers/raw-http.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'spelling-token-0123456789abcdef'
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'QUERY']
const with_body = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'QUERY'])

/** same: decodes to the route's own path; other: another path; refused: must be 400. */
type Kind = 'same' | 'other' | 'refused'
interface Spelling { name: string; target: string; kind: Kind }

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0')

function spellings(path: string, port: number): Spelling[] {
  const out: Spelling[] = [{ name: 'canonical', target: path, kind: 'same' }]
  const add = (name: string, target: string, kind: Kind) => { if (!out.some((s) => s.target === target)) out.push({ name, target, kind }) }
  // One character percent-encoded, in every position, upper- and lower-case hex.
  for (let i = 1; i < path.length; i += 1) {
    const c = path[i] as string
    if (c === '/') continue
    add(`%XX at ${i}`, `${path.slice(0, i)}%${hex(c).toUpperCase()}${path.slice(i + 1)}`, 'same')
    add(`%xx at ${i}`, `${path.slice(0, i)}%${hex(c).toLowerCase()}${path.slice(i + 1)}`, 'same')
  }
  const segments = path.split('/').slice(1)
  const join_ = (parts: string[]) => `/${parts.join('/')}`
  for (let s = 0; s < segments.length; s += 1) {
    const encoded = segments.map((seg, k) => (k === s ? [...seg].map((c) => `%${hex(c)}`).join('') : seg))
    add(`segment ${s} encoded`, join_(encoded), 'same')
    add(`segment ${s} capitalised`, join_(segments.map((seg, k) => (k === s ? seg.charAt(0).toUpperCase() + seg.slice(1) : seg))), 'other')
    // Dot segments and empty segments before segment s.
    const before = (insert: string) => join_([...segments.slice(0, s), insert, ...segments.slice(s)])
    add(`./ before ${s}`, before('.'), 'refused')
    add(`x/../ before ${s}`, join_([...segments.slice(0, s), 'x', '..', ...segments.slice(s)]), 'refused')
    add(`%2e before ${s}`, before('%2e'), 'refused')
    add(`%2E%2E before ${s}`, join_([...segments.slice(0, s), 'x', '%2E%2E', ...segments.slice(s)]), 'refused')
    add(`.%2e before ${s}`, join_([...segments.slice(0, s), 'x', '.%2e', ...segments.slice(s)]), 'refused')
    add(`// before ${s}`, before(''), 'refused')
  }
  add('all characters encoded', join_(segments.map((seg) => [...seg].map((c) => `%${hex(c)}`).join(''))), 'same')
  add('query string holding ../', `${path}?x=/../console/`, 'same')
  add('upper case', path.toUpperCase(), 'other')
  add('trailing slash', `${path}/`, 'other')
  add('matrix parameter', `${path};x`, 'other')
  add('trailing //', `${path}//`, 'refused')
  add('trailing /.', `${path}/.`, 'refused')
  add('trailing /..', `${path}/..`, 'refused')
  add('leading //', `/${path}`, 'refused')
  for (let i = 1; i < path.length; i += 1) {
    if (path[i] !== '/') continue
    add(`%2F at ${i}`, `${path.slice(0, i)}%2F${path.slice(i + 1)}`, 'refused')
    add(`%2f at ${i}`, `${path.slice(0, i)}%2f${path.slice(i + 1)}`, 'refused')
    add(`%5C at ${i}`, `${path.slice(0, i)}%5C${path.slice(i + 1)}`, 'refused')
    add(`\\ at ${i}`, `${path.slice(0, i)}\\${path.slice(i + 1)}`, 'refused')
  }
  for (const [name, tail] of [['%25', '%25'], ['%3F', '%3Fx'], ['%23', '%23x'], ['%00', '%00'], ['%0A', '%0A'], ['%C3%A9', '%C3%A9'], ['%20', '%20'], ['bare %', '%'], ['short %2', '%2'], ['%zz', '%zz'], ['raw #', '#x']]) {
    add(`appended ${name}`, `${path}${tail}`, 'refused')
  }
  add('absolute-form', `http://127.0.0.1:${port}${path}`, 'refused')
  add('absolute-form localhost', `http://localhost:${port}${path}`, 'refused')
  add('absolute-form upper-case scheme', `HTTP://127.0.0.1:${port}${path}`, 'refused')
  add('authority-form', `127.0.0.1:${port}`, 'refused')
  add('asterisk-form', '*', 'refused')
  return out
}

/** The concrete path, query string and body with which each route succeeds. */
function requestFor(url: string, authorised: boolean): { path: string; query: string; body: string } {
  // A revocation names a token no one holds: the route's own answer is 404 unknown_token,
  // the same for every spelling (a real one would be gone after the first).
  const path = url.replace(':tenant', 'default').replace(':id', '0123456789abcdef').replace('*', 'index.html')
  const query = url.endsWith('/diff') ? '?from=before' : url.endsWith('/tail') ? '?after=0' : ''
  let body = ''
  if (url.endsWith('/query')) body = authorised ? '{"query": "users | take 1"}' : 'insert users {id: 999, email: "e", name: "x"}'
  if (url.endsWith('/ops')) body = authorised ? '{"op": "resume", "name": "default"}' : '{"op": "create", "name": "spelled"}'
  if (url.endsWith('/tokens')) body = '{"scope": "admin"}'
  return { path, query, body }
}

/** The route's own answer to the authorised request: its success, or (a revocation of no token) the handler's 404. */
function routeAnswer(url: string, method: string): number {
  if (url === '/console') return 301
  if (url.endsWith('/tokens') && method === 'POST') return 201
  if (url.endsWith('/:id')) return 404
  return 200
}

/** `target` with the route's query string added (after any query the spelling has). */
function withQuery(target: string, query: string): string {
  if (query === '') return target
  return target.includes('?') ? `${target}&${query.slice(1)}` : target + query
}

function send(port: number, method: string, target: string, headers: Record<string, string>, body: string): Promise<RawResponse> {
  const withBody = with_body.has(method)
  return rawRequest(port, requestText(method, target, `127.0.0.1:${port}`, withBody ? { 'content-type': 'text/plain', ...headers } : headers, withBody ? body : undefined))
}

function consoleFixture(t: Parameters<typeof tempDir>[0]): string {
  const root = join(tempDir(t), 'console')
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>')
  return root
}

t.test('R13: no spelling of any route passes the token check', async (t) => {
  const db = await openExampleDatabase(t)
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  const { app, port } = await startServer(t, { token, db, consoleDir: consoleFixture(t) })
  const routes = registeredRoutes(app)
  const urls = [...new Set(routes.map((r) => r.url))]
  t.ok(urls.length >= 15, `${urls.length} route paths`)
  const tenantsBefore = db.tenants().tenants.map((x) => x.name)
  const tokensOf = () => AccessTokens.of(db).list('default').length
  const bearer = { authorization: `Bearer ${token}` }
  let sent = 0
  let issuedWithToken = 0

  for (const url of urls) {
    const isPublic = url.startsWith('/console')
    const own = routes.filter((r) => r.url === url).map((r) => r.method)
    const anonymous = requestFor(url, false)
    const list = spellings(anonymous.path, port)

    // The canonical spelling with the token: the route's real success status.
    const authorised = requestFor(url, true)
    const success = new Map<string, RawResponse>()
    for (const method of own) {
      const res = await send(port, method, authorised.path + authorised.query, bearer, authorised.body)
      sent += 1
      if (res.status === 201 && url.endsWith('/tokens')) issuedWithToken += 1
      t.equal(res.status, routeAnswer(url, method), `${method} ${url} with the token reaches the route`)
      if (url.endsWith('/:id')) t.equal(jsonBody(res)?.code, 'unknown_token', `${method} ${url}: the handler's own refusal`)
      success.set(method, res)
    }

    // Without a token: nothing but the documented refusals, for every method.
    for (const method of methods) {
      const wrong: string[] = []
      for (const spelling of list) {
        const target = spelling.kind === 'refused' ? spelling.target : withQuery(spelling.target, anonymous.query)
        const res = await send(port, method, target, {}, anonymous.body)
        sent += 1
        const publicAnswer = isPublic && spelling.kind === 'same' && own.includes(method) ? success.get(method)?.status : undefined
        const expected = spelling.kind === 'refused' ? 400 : publicAnswer ?? 401
        if (isPublic && spelling.kind === 'other') {
          // Another console path is still public (its own 200/301/404); never an API answer.
          if (![200, 301, 401, 404].includes(res.status)) wrong.push(`${spelling.name} ${JSON.stringify(target)}: ${res.status}`)
          continue
        }
        if (res.status !== expected) wrong.push(`${spelling.name} ${JSON.stringify(target)}: ${res.status} (expected ${expected})`)
        else if (method !== 'HEAD' && expected !== publicAnswer) {
          const code = jsonBody(res)?.code
          if (code !== (expected === 400 ? 'bad_request' : 'unauthorized')) wrong.push(`${spelling.name}: body code ${String(code)}`)
        }
      }
      t.same(wrong, [], `${method} ${url}: ${list.length} spellings without a token answer 400 or 401 (or the public route itself)`)
    }

    // With the token: every spelling that decodes to the path reaches the same route.
    for (const method of own) {
      const wrong: string[] = []
      for (const spelling of list) {
        if (spelling.kind === 'other') continue
        const target = spelling.kind === 'same' ? withQuery(spelling.target, authorised.query) : spelling.target
        const res = await send(port, method, target, bearer, authorised.body)
        sent += 1
        if (res.status === 201 && url.endsWith('/tokens')) issuedWithToken += 1
        const expected = spelling.kind === 'same' ? success.get(method)?.status : 400
        if (res.status !== expected) wrong.push(`${spelling.name} ${JSON.stringify(target)}: ${res.status} (expected ${expected})`)
        else if (spelling.kind === 'same' && res.headers['content-type'] !== success.get(method)?.headers['content-type']) wrong.push(`${spelling.name}: another content type`)
      }
      t.same(wrong, [], `${method} ${url}: with the token, decoded spellings reach the route and refused ones are 400`)
    }
  }

  // No write happened: the anonymous inserts and creates were all refused.
  const users = await db.tenant('default').query('users')
  t.same(users.rows, [], 'no row was written without the token')
  t.same(db.tenants().tenants.map((x) => x.name), tenantsBefore, 'no tenant was created without the token')
  t.equal(tokensOf(), issuedWithToken, 'no tenant token was issued without the token')
  t.comment(`${sent} raw requests`)
})
