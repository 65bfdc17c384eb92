// The OpenAPI linter (docs/api.md, "OpenAPI"): the document a real
// server serves, generated from the routes' schemas, passes Redocly's
// `recommended-strict` rules with no problem at all (every warning of `recommended` is
// an error there); every operation has its own operationId; `servers` names the
// address the server listens on. Copies of the document broken on purpose show the
// linter catches what it is here for.
import { createConfig, lintFromString } from '@redocly/openapi-core'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { serverUrl } from '../src/http/openapi.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'

const token = 'openapi-lint-token-0123456789ab'
type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const http_methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

interface Problem { ruleId: string; severity: string; message: string; pointer: string }

async function lint(document: unknown): Promise<Problem[]> {
  const config = await createConfig({ extends: ['recommended-strict'] })
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config })
  return problems.map((p) => ({ ruleId: p.ruleId, severity: p.severity, message: p.message, pointer: p.location[0]?.pointer ?? '' }))
}

function operations(doc: Json): Array<[string, string, Json]> {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).filter(([method]) => http_methods.includes(method)).map(([method, op]) => [path, method, op as Json] as [string, string, Json]))
}

async function servedDocument(t: Test): Promise<{ doc: Json; origin: string }> {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const res = await fetch(`${origin}/api/v1/openapi.json`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 200)
  return { doc: (await res.json()) as Json, origin }
}

t.test('the served document passes the linter with no problem', async (t) => {
  const { doc, origin } = await servedDocument(t)
  const problems = await lint(doc)
  t.same(problems, [], 'Redocly recommended-strict finds nothing')

  const ops = operations(doc)
  t.ok(ops.length >= 13, `every route is an operation (${ops.length})`)
  const ids = ops.map(([, , op]) => op.operationId as unknown)
  for (const [path, method, op] of ops) t.match(op.operationId, /^[a-z][A-Za-z]+$/, `${method.toUpperCase()} ${path} has an operationId`)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')

  t.same(doc.servers, [{ url: origin, description: 'this server' }], 'servers is the address the server listens on')
})

t.test('the linter fails documents broken on purpose', async (t) => {
  const { doc } = await servedDocument(t)
  const copy = (): Json => structuredClone(doc)
  const cases: Array<[what: string, rule: string, broken: Json]> = []

  const duplicate = copy()
  const [, , first] = operations(duplicate)[0] as [string, string, Json]
  const [, , second] = operations(duplicate)[1] as [string, string, Json]
  second.operationId = first.operationId
  cases.push(['two operations share an operationId', 'operation-operationId-unique', duplicate])

  const anonymous = copy()
  delete (operations(anonymous)[0] as [string, string, Json])[2].operationId
  cases.push(['an operation without operationId', 'operation-operationId', anonymous])

  const serverless = copy()
  delete serverless.servers
  cases.push(['no servers', 'no-empty-servers', serverless])

  const dangling = copy()
  dangling.paths['/api/v1/t/{tenant}/ops'].post.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nowhere' }
  cases.push(['a reference to a schema that does not exist', 'no-unresolved-refs', dangling])

  const undeclared = copy()
  const tail = undeclared.paths['/api/v1/t/{tenant}/tail'].get
  tail.parameters = tail.parameters.filter((p: Json) => p.in !== 'path')
  cases.push(['a path parameter the operation does not declare', 'path-parameters-defined', undeclared])

  const bad_schema = copy()
  bad_schema.paths['/api/v1/t/{tenant}/diff'].get.parameters[0].schema = { type: 'text' }
  cases.push(['a schema with a type JSON Schema does not have', 'struct', bad_schema])

  for (const [what, rule, broken] of cases) {
    const problems = await lint(broken)
    t.ok(problems.some((p) => p.ruleId === rule && p.severity === 'error'), `${what}: ${rule}`, { problems })
  }
})

t.test('servers: the listening address, or for a wildcard the host the request named', async (t) => {
  const at = (address: string, family: string, port = 7070): AddressInfo => ({ address, family, port })
  t.equal(serverUrl(at('127.0.0.1', 'IPv4'), 'localhost:7070'), 'http://127.0.0.1:7070')
  t.equal(serverUrl(at('::1', 'IPv6'), 'localhost:7070'), 'http://[::1]:7070')
  t.equal(serverUrl(at('0.0.0.0', 'IPv4', 8080), 'db.lan:8080'), 'http://db.lan:8080')
  t.equal(serverUrl(at('0.0.0.0', 'IPv4', 8080), 'db.lan'), 'http://db.lan:8080', 'a Host without a port: the listening port')
  t.equal(serverUrl(at('::', 'IPv6', 8080), '[fe80::1]:8080'), 'http://[fe80::1]:8080')
})
