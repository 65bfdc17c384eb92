// R15 (docs/api.md, "OpenAPI"): what the OpenAPI fuzzer found, and the mismatches found
// before it ran, as exact requests over real HTTP: each server answer is checked, and
// so is the document's description of it (its status is documented for the operation,
// and the document's constraint says the same as the server). The fuzzer itself is
// test/http-openapi-fuzz.test.ts.
import t from 'tap'
import { error_statuses } from '../src/http/errors.js'
import { tail_wait_ms_max } from '../src/limits.js'
import { checkName } from '../src/tenants/index.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { jsonBody, rawRequest, requestText } from './helpers/raw-http.js'

const token = 'openapi-regress-token-012345678'
type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

t.test('R15 fuzzer findings: the server and its document agree', async (t) => {
  const db = await openExampleDatabase(t)
  const lsn = (await db.tenant('default').query('insert users {id: 1, email: "a", name: "A"}')).lsn ?? 0
  const { port } = await startServer(t, { token, db })
  const doc = (await (await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).json()) as Json
  const send = (method: string, target: string, body?: string, auth = true) => rawRequest(port, requestText(method, target, `127.0.0.1:${port}`,
    { ...(auth ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body))
  const operation = (path: string, method: string): Json => doc.paths[path][method]
  const documented = (path: string, method: string, status: number, what: string) =>
    t.ok(operation(path, method).responses[String(status)], `${what}: ${status} is documented for ${method.toUpperCase()} ${path}`)

  // The query body needs `query` or `text`, exactly one of them.
  const queryBody = operation('/api/v1/t/{tenant}/query', 'post').requestBody.content['application/json'].schema
  t.same(queryBody.oneOf, [{ required: ['query'] }, { required: ['text'] }], 'the document requires query or text')
  for (const body of ['{}', '{"params": {}}', '{"query": 1}', '{"query": "users | take 1", "text": {}}', '{"query": "users", "text": "users"}']) {
    const res = await send('POST', '/api/v1/t/default/query', body)
    t.equal(res.status, 400, `query body ${body}`)
    t.equal(jsonBody(res)?.code, 'bad_request', `query body ${body}`)
    t.equal(jsonBody(res)?.conflict, false)
  }
  documented('/api/v1/t/{tenant}/query', 'post', 400, 'a query body without query')

  // fork and snapshot need a target.
  const opsBody = operation('/api/v1/t/{tenant}/ops', 'post').requestBody.content['application/json'].schema
  const variant = (op: string) => opsBody.oneOf.find((v: Json) => (v.properties.op.enum ?? [v.properties.op.const]).includes(op))
  for (const op of ['fork', 'snapshot']) {
    t.ok(variant(op).required.includes('target'), `the document says ${op} needs a target`)
    const res = await send('POST', '/api/v1/t/default/ops', JSON.stringify({ op, name: 'default' }))
    t.equal(res.status, 400, `${op} without a target`)
    // The sentence is db.ops's own (tenants/op-request.ts): the route refuses in the library's words.
    t.same(jsonBody(res), { error: `${op} needs a target`, code: 'bad_request', conflict: false })
  }
  t.notOk(variant('create').required.includes('target'), 'create needs no target')

  // A name that is not a string is refused, null included (it once fell back to the path tenant).
  for (const body of [{ op: 'create', name: null }, { op: 'compact', name: 5 }, { op: 'suspend', name: ['default'] }]) {
    const res = await send('POST', '/api/v1/t/zzz/ops', JSON.stringify(body))
    t.equal(res.status, 400, `ops ${JSON.stringify(body)}`)
    t.same(jsonBody(res), { error: 'name must be a string', code: 'bad_request', conflict: false })
  }

  // diff's from may not be empty.
  const from = operation('/api/v1/t/{tenant}/diff', 'get').parameters.find((p: Json) => p.name === 'from')
  t.equal(from.required, true)
  t.equal(from.schema.minLength, 1, 'the document says from is at least one character')
  const emptyFrom = await send('GET', '/api/v1/t/default/diff?from=')
  t.equal(emptyFrom.status, 400, 'diff with from=')
  documented('/api/v1/t/{tenant}/diff', 'get', 400, 'diff with from=')

  // A tail after past the head is a documented 400.
  const past = await send('GET', `/api/v1/t/default/tail?after=${lsn + 1000}`)
  t.equal(past.status, 400, 'after past the head')
  t.equal(jsonBody(past)?.code, 'bad_request')
  t.match(operation('/api/v1/t/{tenant}/tail', 'get').responses['400'].description, /beyond the newest commit/, 'the document says so')

  // wait_ms above the maximum is refused, not lowered; the maximum is documented.
  const wait = operation('/api/v1/t/{tenant}/tail', 'get').parameters.find((p: Json) => p.name === 'wait_ms')
  t.equal(wait.schema.maximum, tail_wait_ms_max, 'the document states the maximum')
  const over = await send('GET', `/api/v1/t/default/tail?after=0&wait_ms=${tail_wait_ms_max + 1}`)
  t.equal(over.status, 400, 'wait_ms over the maximum')
  t.same(jsonBody(over), { error: `wait_ms may be at most ${tail_wait_ms_max}, got ${tail_wait_ms_max + 1}`, code: 'bad_request', conflict: false })
  const atMax = await send('GET', `/api/v1/t/default/tail?after=0&wait_ms=${tail_wait_ms_max}`)
  t.equal(atMax.status, 200, 'the maximum itself (an event is waiting, so it returns at once)')

  // Fuzzer: a tenant parameter over 100 characters got find-my-way's own 414, answered
  // before any hook (so without the token check) in an undocumented body. It is now a
  // name the tenant pattern refuses (the test below), after the token check.
  const long = 'a'.repeat(101)
  const anonymous = await send('GET', `/api/v1/t/${long}/snapshots`, undefined, false)
  t.equal(anonymous.status, 401, 'a long tenant name without the token')
  const named = await send('GET', `/api/v1/t/${long}/snapshots`)
  t.equal(named.status, 400)
  t.equal(jsonBody(named)?.code, 'bad_request')
  documented('/api/v1/t/{tenant}/snapshots', 'get', 400, 'a long tenant name')

  // Fuzzer: a non-ASCII tenant (percent-encoded) is a refused path, 400 on every
  // operation, documented; with `conflict: false` as every error body (the query route's too).
  for (const [method, path] of [['get', '/api/v1/t/{tenant}/collections'], ['get', '/api/v1/t/{tenant}/schema'], ['get', '/api/v1/t/{tenant}/snapshots'], ['post', '/api/v1/t/{tenant}/query']] as const) {
    const res = await send(method.toUpperCase(), path.replace('{tenant}', '%C2%84'), method === 'post' ? '{"query": "users"}' : undefined)
    t.equal(res.status, 400, `${method} ${path} with a non-ASCII tenant`)
    t.equal(jsonBody(res)?.code, 'bad_request')
    t.equal(jsonBody(res)?.conflict, false)
    documented(path, method, 400, 'a refused path')
  }
  t.same(doc.paths['/api/v1/t/{tenant}/query'].post.responses['400'].content['application/json'].schema.$ref,
    '#/components/schemas/QueryError', 'the query route\'s 400 is a QueryError, a refused path\'s too')

  // Every status of the error catalogue an operation can meet before its handler is documented on every operation.
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(methods as Json)) {
      for (const status of [400, 401, 403, 408, 429, 431, 500, 503]) t.ok((op as Json).responses[String(status)], `${method.toUpperCase()} ${path} documents ${status}`)
    }
  }
  for (const path of ['/api/v1/t/{tenant}/query', '/api/v1/t/{tenant}/ops']) {
    for (const status of [413, 507]) documented(path, 'post', status, 'a route with a body that writes')
  }
  t.same(doc.components.schemas.Error.properties.code.enum, Object.keys(error_statuses), 'the Error schema lists every code of the catalogue')
})

// Fuzzer (ST202, 10 failures): the tenant path parameter was any string, so names the
// server cannot have were valid by the document. Every operation's tenant parameter now
// declares the pattern tenant names are checked with (src/tenants/names.ts), and the
// server refuses a name outside it with 400 on every such operation.
t.test('R15 fuzzer finding: every tenant path parameter declares the pattern the server checks names with', async (t) => {
  const { port } = await startServer(t, { token, db: await openExampleDatabase(t) })
  const doc = (await (await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).json()) as Json
  const send = (method: string, target: string) => rawRequest(port, requestText(method, target, `127.0.0.1:${port}`, { authorization: `Bearer ${token}` }))

  const operations = Object.entries(doc.paths as Json).filter(([path]) => path.includes('{tenant}'))
    .flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })))
  t.ok(operations.length >= 10, `${operations.length} operations take a tenant in their path`)
  const patterns = new Set<string>()
  for (const { path, method, op } of operations) {
    const param = (op.parameters as Json[]).find((p) => p.in === 'path' && p.name === 'tenant')
    t.type(param?.schema?.pattern, 'string', `${method.toUpperCase()} ${path}: the tenant parameter has a pattern`)
    patterns.add(param?.schema?.pattern)
  }
  t.equal(patterns.size, 1, 'one pattern for all of them')
  const pattern = new RegExp([...patterns][0] ?? '(?!)', 'u') // JSON Schema patterns are ECMA-262, unanchored

  const accepted = (name: string) => { try { checkName(name, 'tenant'); return true } catch { return false } }
  const valid = ['default', 'a', '0', 'acme-2', 'x_y', '9lives', 'a'.repeat(63)]
  const invalid = ['Acme', 'BAD', '-x', '_x', 'a.b', 'a~b', 'a@b', 'a:b', 'a+b', 'a'.repeat(64), 'a'.repeat(101)]
  for (const name of valid) {
    t.ok(accepted(name), `the server's check takes ${name.slice(0, 12)}`)
    t.ok(pattern.test(name), `the document's pattern takes ${name.slice(0, 12)}`)
  }
  for (const name of invalid) {
    t.notOk(accepted(name), `the server's check refuses ${name.slice(0, 12)}`)
    t.notOk(pattern.test(name), `the document's pattern refuses ${name.slice(0, 12)}`)
    // Over HTTP, on every operation: 400 naming the parameter, before its body or other parameters are looked at.
    for (const { path, method } of operations) {
      const res = await send(method.toUpperCase(), path.replace('{tenant}', name).replace('{id}', 'tok'))
      t.equal(res.status, 400, `${method.toUpperCase()} ${path} with tenant ${name.slice(0, 12)}`)
      t.match(jsonBody(res), { code: 'bad_request', error: /^tenant must match/ })
    }
  }
  // With a body the route would take: the path tenant is still refused (the ops route once ignored it for a named create).
  for (const [path, body] of [['/api/v1/t/Acme/ops', '{"op": "create", "name": "made"}'], ['/api/v1/t/Acme/query', '{"query": "users"}'], ['/api/v1/t/Acme/tokens', '{"scope": "read"}']] as const) {
    const res = await rawRequest(port, requestText('POST', path, `127.0.0.1:${port}`, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body))
    t.equal(res.status, 400, `POST ${path} ${body}`)
    t.match(jsonBody(res), { code: 'bad_request', error: /^tenant must match/ })
  }
  t.equal((await send('GET', '/api/v1/t/made/collections')).status, 404, 'no tenant was created')

  // A valid name no tenant has is still unknown: 404.
  const unknown = await send('GET', '/api/v1/t/no-such-tenant/collections')
  t.equal(unknown.status, 404)
  t.same(jsonBody(unknown), { error: 'no tenant named \'no-such-tenant\'', code: 'unknown_tenant', conflict: false })
})
