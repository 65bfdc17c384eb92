// The wire types (docs/architecture.md, "Wire types") against a real server: every body
// the console reads, from every route it calls, is valid under the schema its type is
// derived from (src/http/wire/), read as closed as the derived types are (an object
// schema without additionalProperties takes no other field). A field the server adds,
// drops or changes without its schema fails here, without the OpenAPI fuzzer's venv; the
// handlers' return types hold the rest at compile time.
import { Ajv } from 'ajv'
import t from 'tap'
import {
  access_body, collections_body, diff_body, error_schema, health_body, health_detail_body, issued_token_body, op_result_schema,
  pages_schema, query_error_schema, query_result_body, schema_ir_schema, schema_status_body, snapshots_body, stats_body,
  tail_event_schema, tail_page_body, tenant_usage_body, tenants_body, tokens_body, trends_body, value_schema,
} from '../src/http/wire/index.js'
import { api, openExampleDatabase, startServer } from './helpers/http-server.js'

const token = 'wire-types-token-0123456789abcdef'

/** `schema` with every object schema that lists properties and says nothing of others closed. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) out[key] = key === 'examples' || key === 'enum' || key === 'const' ? value : closed(value)
  if ('properties' in out && !('additionalProperties' in out) && !('oneOf' in out) && !('anyOf' in out)) out.additionalProperties = false
  return out
}

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true })
for (const shared of [error_schema, query_error_schema, tail_event_schema, op_result_schema, pages_schema, value_schema, schema_ir_schema]) ajv.addSchema(closed(shared) as object)

t.test('closing a schema refuses a field its type does not have', async (t) => {
  const check = ajv.compile(closed({ type: 'object', required: ['a'], properties: { a: { type: 'integer' } } }) as object)
  t.ok(check({ a: 1 }))
  t.notOk(check({ a: 1, b: 2 }), 'another field is refused')
})

t.test('every body the console reads is what its wire schema says', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const valid = (what: string, schema: unknown, body: unknown) => {
    // A shared schema is checked as registered (its $id names it once).
    const id = (schema as { $id?: string }).$id
    const check = id === undefined ? ajv.compile(closed(schema) as object) : ajv.getSchema(id)
    if (check === undefined) throw new Error(`no shared schema ${String(id)}`)
    if (!t.ok(check(body), what)) t.comment(JSON.stringify({ errors: check.errors, body }).slice(0, 2000))
  }
  const ok = async (what: string, schema: unknown, path: string, init: Parameters<typeof call>[1] = {}) => {
    const res = await call(path, init)
    t.ok(res.status === 200 || res.status === 201, `${what}: ${res.status}`)
    valid(what, schema, res.body)
    return res.body as Record<string, unknown>
  }
  const query = (text: string, params: Record<string, unknown> = {}) => ok(`query ${text}`, query_result_body, '/api/v1/t/default/query', { json: { query: text, params } })

  await query('insert users {id: 1, email: "ada@example.com", name: "Ada", age: 36, tags: ["x"]}')
  await query('insert orders {id: 10, user: 1, amount: 2.5}')
  await query('atomic { insert users {id: 2, email: "bob@example.com", name: "Bob"}; users | where id == 2 | update {age: 40} }')
  await query('orders | lookup buyer: users on user == id | select id, amount, name: buyer.name')
  await query('users | where email == "ada@example.com"')
  await query('users | sort name')
  valid('op snapshot', op_result_schema, (await call('/api/v1/t/default/ops', { json: { op: 'snapshot', name: 'default', target: 'before' } })).body)
  await query('users | where id == 1 | update {name: "Ada L."}')
  valid('op fork', op_result_schema, (await call('/api/v1/t/default/ops', { json: { op: 'fork', name: 'default@before', target: 'staging' } })).body)

  await ok('health', health_body, '/api/v1/health')
  await ok('health detail', health_detail_body, '/api/v1/health/detail')
  await ok('stats', stats_body, '/api/v1/stats')
  await ok('trends', trends_body, '/api/v1/trends')
  const tenants = await ok('tenants', tenants_body, '/api/v1/tenants')
  t.ok((tenants.tenants as Array<{ parent: unknown }>).some((x) => x.parent !== null), 'a fork with its parent is among them')
  await ok('collections', collections_body, '/api/v1/t/default/collections')
  await ok('schema', schema_status_body, '/api/v1/t/default/schema')
  await ok('snapshots', snapshots_body, '/api/v1/t/default/snapshots')
  const usage = await ok('usage', tenant_usage_body, '/api/v1/t/default/usage')
  t.ok((usage.rows_written as number) > 0, 'the usage counts the writes above')
  const diff = await ok('diff', diff_body, '/api/v1/t/default/diff?from=before')
  t.ok(Object.keys(diff.collections as object).length > 0, 'the diff holds changes')
  await ok('diff of a fork', diff_body, '/api/v1/t/staging/diff?from=default@before')
  const page = await ok('tail', tail_page_body, '/api/v1/t/default/tail?after=0')
  t.ok((page.events as unknown[]).length >= 3, 'the tail holds events')
  valid('op restore', op_result_schema, (await call('/api/v1/t/default/ops', { json: { op: 'restore', name: 'default@before' } })).body)
  const restored = await ok('tail after a restore', tail_page_body, '/api/v1/t/default/tail?after=0')
  t.ok((restored.events as Array<{ restored?: unknown }>).some((e) => e.restored !== undefined), 'with a restore event')

  await ok('access, service token', access_body, '/api/v1/access')
  const issued = await ok('issue a token', issued_token_body, '/api/v1/t/default/tokens', { json: { scope: 'read', name: 'wire', expires_in_s: 3600 } })
  await ok('access, tenant token', access_body, '/api/v1/access', { headers: { authorization: `Bearer ${String(issued.token)}` } })
  await ok('tokens', tokens_body, '/api/v1/t/default/tokens')
  await ok('revoke', op_result_schema, `/api/v1/t/default/tokens/${String(issued.id)}`, { method: 'DELETE' })

  const refused = async (what: string, schema: unknown, path: string, init: Parameters<typeof call>[1]) => {
    const res = await call(path, init)
    t.ok(res.status >= 400, `${what}: ${res.status}`)
    valid(what, schema, res.body)
    return res.body as Record<string, unknown>
  }
  const syntax = await refused('a syntax error', query_error_schema, '/api/v1/t/default/query', { json: { query: 'users | where age = 3' } })
  t.match(syntax, { line: 1, column: 19, what: String, hint: String })
  const taken = await refused('a unique value taken', query_error_schema, '/api/v1/t/default/query', { json: { query: 'insert users $row', params: { row: { id: 3, email: 'ada@example.com', name: 'Ada again' } } } })
  t.same(taken.fields, ['email'], 'the unique index\'s fields')
  const typed = await refused('a value of the wrong type', query_error_schema, '/api/v1/t/default/query', { json: { query: 'insert users $row', params: { row: { id: 3, email: 'c@example.com', name: 'C', age: 'old' } } } })
  t.same(typed.fields, ['age'], 'the field of the wrong type')
  await refused('an unknown tenant', error_schema, '/api/v1/t/nobody/snapshots', {})
  await refused('an expired history', error_schema, '/api/v1/t/default/tail?after=999999', {})
})
