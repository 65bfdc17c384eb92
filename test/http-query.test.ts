// POST /api/v1/t/:tenant/query over real HTTP: body forms, results, every failure a
// 400 with conflict and Eel's position, the snapshot pin header, the body limit.
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { api, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'query-token-0123456789abcdef'
const schema = 'collection users {\n  id: int primary,\n  email: string unique,\n  age: int?,\n  index (age),\n}\n'

async function setup(t: Test) {
  const dir = tempDir(t)
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, schema)
  const db = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  return { db, origin, call: api(origin, token) }
}

const path = '/api/v1/t/default/query'

t.test('query: JSON with query or text and params, or a plain-text body', async (t) => {
  const { origin, call } = await setup(t)
  const write = await call(path, { json: { query: 'insert users [{id: 1, email: "a@x", age: 30}, {id: 2, email: "b@x", age: 40}]' } })
  t.equal(write.status, 200)
  t.match(write.body, { columns: ['affected'], rows: [[2]], lsn: Number, stats: { elapsed_ms: Number, rows_examined: Number } })
  const read = await call(path, { json: { text: 'users | where age > $a | select email', params: { a: 35 } } })
  t.equal(read.status, 200)
  t.match(read.body, { columns: ['email'], rows: [['b@x']], plan: { collection: 'users', access: String } })
  for (const contentType of ['text/plain', 'application/x-eel', undefined]) {
    const res = await fetch(origin + path, {
      method: 'POST', body: 'users | get 1 | select email',
      headers: { authorization: `Bearer ${token}`, ...(contentType === undefined ? {} : { 'content-type': contentType }) },
    })
    t.equal(res.status, 200, String(contentType))
    t.match(await res.json(), { columns: ['email'], rows: [['a@x']] }, String(contentType))
  }
  const plain = await call(path, { method: 'POST', body: 'users | get 2 | select age', headers: { 'content-type': 'application/json' } })
  t.same(plain.body.rows, [[40]], 'a body that is not JSON is the text, whatever its type')
  const block = await call(path, { json: { query: 'atomic {\n  insert users {id: 3, email: "c@x"};\n  users | get 3 | update {age: 1};\n}' } })
  t.equal(block.status, 200)
  t.match(block.body, { results: Array, lsn: Number })
})

t.test('query: every failure is 400 with code, conflict and Eel position', async (t) => {
  const { call } = await setup(t)
  await call(path, { json: { query: 'insert users {id: 1, email: "a@x"}' } })
  const syntax = await call(path, { json: { query: 'users | where age = 3' } })
  t.equal(syntax.status, 400)
  t.match(syntax.body, { code: 'syntax_error', conflict: false, line: 1, column: Number, error: String })
  t.ok(syntax.body.hint === undefined || typeof syntax.body.hint === 'string')
  for (const [text, code] of [
    ['nope | take 1', 'unknown_collection'],
    ['users | where nope == 1', 'unknown_field'],
    ['users | where age == "x"', 'type_error'],
    ['insert users {id: 2, email: "a@x"}', 'constraint_violation'],
    ['collection x { id: int primary }', 'not_allowed_here'],
    ['query q() { users }', 'not_allowed_here'],
    ['tenant fork default as other', 'not_allowed_here'],
  ] as const) {
    const res = await call(path, { json: { query: text } })
    t.equal(res.status, 400, text)
    t.match(res.body, { code, conflict: false, error: String }, text)
  }
  const multi = await call(path, { json: { query: 'users\n  | where age >\n' } })
  t.match(multi.body, { code: 'syntax_error', line: Number, column: Number })
  for (const body of ['{"params": {}}', '[1]', '{"query": 3}', '{"query": "users", "params": [1]}']) {
    const res = await call(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
    t.equal(res.status, 400, body)
    t.match(res.body, { code: 'bad_request', conflict: false }, body)
  }
})

t.test('query: a lost first-committer-wins race is 400 conflict: true', async (t) => {
  const { call } = await setup(t)
  await call(path, { json: { query: 'insert users {id: 1, email: "a@x", age: 0}' } })
  const bump = 'atomic {\n  users | get 1 | update {age: age + 1};\n  users | get 1 | update {age: age + 1};\n}'
  // Eight blocks at once on eight connections overlap (each one's snapshot is taken
  // while another's commit waits for its fsync), so nearly every round has losers;
  // rounds repeat until one has, and every answer must be a commit or the documented
  // conflict: anything else (a 500, another code) fails.
  const rounds_max = 100
  let ok = 0
  let conflicts = 0
  let rounds = 0
  while (conflicts === 0 && rounds < rounds_max) {
    rounds += 1
    const results = await Promise.all(Array.from({ length: 8 }, () => call(path, { json: { query: bump } })))
    const committed = results.filter((r) => r.status === 200)
    const lost = results.filter((r) => r.status === 400 && r.body.code === 'conflict')
    for (const r of committed) t.match(r.body, { results: Array, lsn: Number }, 'a committed block')
    for (const r of lost) t.match(r.body, { error: String, code: 'conflict', conflict: true }, 'a lost race')
    const other = results.filter((r) => !committed.includes(r) && !lost.includes(r))
    t.same(other.map((r) => ({ status: r.status, body: r.body })), [], `round ${rounds}: every answer is a commit or a conflict`)
    t.ok(committed.length >= 1, `round ${rounds}: the first committer wins`)
    ok += committed.length
    conflicts += lost.length
    if (other.length > 0) break
  }
  t.ok(conflicts > 0, `some block lost the race (${conflicts} conflicts in ${rounds} rounds)`)
  const age = (await call(path, { json: { query: 'users | get 1 | select age' } })).body.rows[0][0]
  t.equal(age, ok * 2, 'each committed block added 2, each failed one left nothing behind')
})

t.test('query: Service-Snapshot pins reads; writes are readonly_snapshot; unknown is 404', async (t) => {
  const { db, call } = await setup(t)
  await call(path, { json: { query: 'insert users {id: 1, email: "old@x"}' } })
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  await call(path, { json: { query: 'users | get 1 | update {email: "new@x"}' } })
  const pinned = await call(path, { json: { query: 'users | get 1 | select email' }, headers: { 'service-snapshot': 'before' } })
  t.equal(pinned.status, 200)
  t.same(pinned.body.rows, [['old@x']])
  t.same((await call(path, { json: { query: 'users | get 1 | select email' } })).body.rows, [['new@x']], 'unpinned reads head')
  const write = await call(path, { json: { query: 'insert users {id: 2, email: "b@x"}' }, headers: { 'service-snapshot': 'before' } })
  t.equal(write.status, 400)
  t.match(write.body, { code: 'readonly_snapshot', conflict: false })
  const unknown = await call(path, { json: { query: 'users' }, headers: { 'service-snapshot': 'nope' } })
  t.equal(unknown.status, 404)
  t.match(unknown.body, { code: 'unknown_snapshot', conflict: false })
})

t.test('query: unknown tenant 404, suspended tenant 400, body over 1 MiB 413', async (t) => {
  const { db, call } = await setup(t)
  const unknown = await call('/api/v1/t/nobody/query', { json: { query: 'users' } })
  t.equal(unknown.status, 404)
  t.match(unknown.body, { code: 'unknown_tenant', conflict: false })
  await db.ops({ op: 'create', name: 'sleepy' })
  await db.ops({ op: 'suspend', name: 'sleepy' })
  const suspended = await call('/api/v1/t/sleepy/query', { json: { query: 'users' } })
  t.equal(suspended.status, 400, 'tenant_suspended is 400 on the query route')
  t.match(suspended.body, { code: 'tenant_suspended', conflict: false })
  const huge = await call(path, { method: 'POST', body: `users | where email == "${'x'.repeat(1024 * 1024)}"`, headers: { 'content-type': 'text/plain' } })
  t.equal(huge.status, 413)
  t.match(huge.body, { code: 'payload_too_large', error: /1048576/ })
})
