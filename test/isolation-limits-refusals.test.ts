// Tenant limits reached and refused (docs/operations.md, "Isolation"), over real HTTP and
// through the embedding API of a real database: the storage quota (`quota_exceeded`,
// nothing of the statement or atomic block written, and deletes, shrinking updates,
// reads and compact still served over quota), the rate budgets (`rate_limited` with
// `budget` and Retry-After), the statement limits (the code and `limit` naming it, never
// above the server's), who may set limits, Eel's `tenant limit` through db.run, and
// `null` returning a limit to the server's default.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import type { IsolationOptions } from '../src/isolation/index.js'
import { QueryError } from '../src/query/index.js'
import { api, startServer } from './helpers/http-server.js'
import { held, recount } from './helpers/live-recount.js'
import { tempDir } from './helpers/temp-dir.js'
import { issue } from './helpers/tenant-tokens.js'

const token = 'isolation-limits-token-0123456789'
const schema = 'collection items { id: int primary, n: int, s: string, index (n) }\n'

async function open(t: Test, isolation: IsolationOptions = {}): Promise<Database> {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'schema.eel'), schema)
  const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 'schema.eel')], isolation })
  t.teardown(() => db.close())
  return db
}

/** The error `fn` rejects with (a test failure if it resolves). */
async function refusal(fn: () => Promise<unknown>): Promise<QueryError> {
  try {
    await fn()
  } catch (err) {
    if (err instanceof QueryError) return err
    throw err
  }
  throw new Error('expected a refusal, the statement succeeded')
}

const rows = (from: number, count: number, s = 'x') => Array.from({ length: count }, (_, i) => ({ id: from + i, n: (from + i) % 7, s }))

async function ids(db: Database, tenant: string): Promise<number[]> {
  const res = await db.tenant(tenant).query('items | sort id | select id')
  return res.rows.map((r) => (r as number[])[0] as number)
}

t.test('storage_rows: a statement or atomic block crossing it commits none of its rows, embedded and over HTTP', async (t) => {
  const db = await open(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  for (const name of ['emb', 'web']) {
    await db.ops({ op: 'create', name })
    await db.ops({ op: 'limit', name, limits: { storage_rows: 5 } })
    await db.tenant(name).query('insert items $rows', { rows: rows(1, 3) })
  }

  const block = 'atomic { insert items {id: 10, n: 1, s: "a"}; insert items {id: 11, n: 2, s: "b"}; insert items {id: 12, n: 3, s: "c"} }'
  const err = await refusal(() => db.tenant('emb').query(block))
  t.equal(err.code, 'quota_exceeded')
  t.same(err.details, { quota: 'storage_rows' })
  t.match((await refusal(() => db.tenant('emb').query('insert items $rows', { rows: rows(20, 3) }))).code, 'quota_exceeded', 'one insert of three rows')
  t.same(await ids(db, 'emb'), [1, 2, 3], 'no row of a refused block or insert')
  t.same(held(db, 'emb'), recount(db, 'emb'))
  t.equal(held(db, 'emb').rows, 3)

  const http = await call('/api/v1/t/web/query', { json: { query: block } })
  t.equal(http.status, 403)
  t.match(http.body, { code: 'quota_exceeded', quota: 'storage_rows', conflict: false })
  t.same(await ids(db, 'web'), [1, 2, 3])
  t.equal(held(db, 'web').rows, 3)

  // Up to the quota is allowed; one past it is not.
  t.equal((await call('/api/v1/t/web/query', { json: { query: 'insert items $rows', params: { rows: rows(4, 2) } } })).status, 200, 'reaching the quota exactly')
  const past = await call('/api/v1/t/web/query', { json: { query: 'insert items {id: 99, n: 0, s: "z"}' } })
  t.equal(past.status, 403)
  t.equal(past.body.quota, 'storage_rows')
  t.same(held(db, 'web'), { ...recount(db, 'web'), rows: 5 })
  t.equal(db.tenant('web').usage().quota_exceeded, 2, 'both refusals counted in the usage')
})

t.test('storage_bytes: a growing write is refused; deletes, shrinking updates, reads and compact go on over quota', async (t) => {
  const db = await open(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const q = (query: string, params: Record<string, unknown> = {}) => call('/api/v1/t/acme/query', { json: { query, params } })
  await db.ops({ op: 'create', name: 'acme' })
  await db.tenant('acme').query('insert items $rows', { rows: rows(1, 10, 's'.repeat(100)) })
  const before = held(db, 'acme')
  t.same(before, recount(db, 'acme'), 'usage before any limit equals the recount')
  t.equal((await call('/api/v1/t/acme/ops', { json: { op: 'limit', limits: { storage_bytes: before.bytes + 50 } } })).status, 200)

  const big = await q('insert items {id: 100, n: 1, s: $s}', { s: 'b'.repeat(200) })
  t.equal(big.status, 403)
  t.match(big.body, { code: 'quota_exceeded', quota: 'storage_bytes' })
  const embedded = await refusal(() => db.tenant('acme').query('insert items {id: 101, n: 1, s: $s}', { s: 'b'.repeat(200) }))
  t.same([embedded.code, embedded.details.quota], ['quota_exceeded', 'storage_bytes'])
  t.same(held(db, 'acme'), before, 'nothing written by either refusal')
  t.same(held(db, 'acme'), recount(db, 'acme'))

  // Now far over its quota: only what shrinks it passes.
  await db.ops({ op: 'limit', name: 'acme', limits: { storage_bytes: Math.floor(before.bytes / 2) } })
  t.equal((await q('items | where id == 3 | update {s: s + "x"}')).status, 403, 'an update growing a row')
  t.equal((await q('items | where id == 3')).body.rows[0].length > 0, true, 'a read')
  t.equal((await q('items | where n >= 0 | count')).status, 200, 'a scan')
  const shrink = await q('items | where id == 3 | update {s: "y"}')
  t.equal(shrink.status, 200, 'an update shrinking a row')
  const del = await q('items | where id == 4 | delete')
  t.equal(del.status, 200, 'a delete')
  t.equal((await call('/api/v1/t/acme/ops', { json: { op: 'compact' } })).status, 200, 'compact')
  t.equal((await q('insert items {id: 102, n: 1, s: "t"}')).status, 403, 'still over: even a small insert')
  t.same(await ids(db, 'acme'), [1, 2, 3, 5, 6, 7, 8, 9, 10])
  const after = held(db, 'acme')
  t.ok(after.bytes < before.bytes, 'the usage went down with the shrink and the delete')
  t.same(after, recount(db, 'acme'))
  t.equal(after.rows, 9)
})

t.test('storage_rows over quota: an update keeping the rows and a delete pass, an insert does not', async (t) => {
  const db = await open(t)
  await db.ops({ op: 'create', name: 'acme' })
  await db.tenant('acme').query('insert items $rows', { rows: rows(1, 5) })
  await db.ops({ op: 'limit', name: 'acme', limits: { storage_rows: 3 } })
  const a = db.tenant('acme')
  await a.query('items | where id == 1 | update {n: 100}')
  await a.query('upsert items {id: 2, n: 5, s: "upserted"}')
  t.equal((await refusal(() => a.query('insert items {id: 9, n: 1, s: "x"}'))).code, 'quota_exceeded')
  await a.query('items | where id == 5 | delete')
  t.same(await ids(db, 'acme'), [1, 2, 3, 4])
  t.same(held(db, 'acme'), recount(db, 'acme'))
  t.equal(held(db, 'acme').rows, 4)
})

t.test('rate budgets refuse with rate_limited, the budget and Retry-After; nothing of a refused write lands', async (t) => {
  const db = await open(t, { budget_wait_ms_max: 20 })
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  for (const name of ['c1', 'c2', 'wb', 're']) await db.ops({ op: 'create', name })
  await db.tenant('re').query('insert items $rows', { rows: rows(1, 1000) })
  await db.ops({ op: 'limit', name: 'c1', limits: { commits_per_s: 1 } })
  await db.ops({ op: 'limit', name: 'c2', limits: { commits_per_s: 1 } })
  await db.ops({ op: 'limit', name: 'wb', limits: { write_bytes_per_s: 100 } })
  await db.ops({ op: 'limit', name: 're', limits: { rows_examined_per_s: 100 } })
  const q = (tenant: string, query: string, params: Record<string, unknown> = {}) => call(`/api/v1/t/${tenant}/query`, { json: { query, params } })

  t.equal((await q('c1', 'insert items {id: 1, n: 1, s: "a"}')).status, 200, 'the first commit is within the burst')
  const second = await q('c1', 'insert items {id: 2, n: 1, s: "b"}')
  t.equal(second.status, 429)
  t.match(second.body, { code: 'rate_limited', budget: 'commits_per_s', retry_after_s: 1 })
  t.equal(second.headers.get('retry-after'), '1')
  t.same(await ids(db, 'c1'), [1], 'the refused insert wrote nothing')
  t.equal((await q('c1', 'items | count')).status, 200, 'reads do not spend the commit budget')

  await db.tenant('c2').query('insert items {id: 1, n: 1, s: "a"}')
  const embedded = await refusal(() => db.tenant('c2').query('insert items {id: 2, n: 1, s: "b"}'))
  t.equal(embedded.code, 'rate_limited')
  t.same(embedded.details, { budget: 'commits_per_s', retry_after_s: 1 })

  t.equal((await q('wb', 'insert items {id: 1, n: 1, s: $s}', { s: 'w'.repeat(3000) })).status, 200, 'a write of 3000 bytes, charged after it ran')
  const wb = await q('wb', 'insert items {id: 2, n: 1, s: "w"}')
  t.equal(wb.status, 429)
  t.equal(wb.body.budget, 'write_bytes_per_s')
  t.ok(wb.body.retry_after_s >= 20, `a debt of 3000 bytes at 100 a second: retry in ${wb.body.retry_after_s} s`)
  t.equal(wb.headers.get('retry-after'), String(wb.body.retry_after_s))
  t.equal((await q('wb', 'items | count')).status, 200, 'reads do not wait for a write budget')

  t.equal((await q('re', 'items | where s != "q" | count')).status, 200, 'a scan of 1000 rows, charged after it ran')
  const re = await q('re', 'items | where id == 1')
  t.equal(re.status, 429)
  t.equal(re.body.budget, 'rows_examined_per_s')
  t.ok(Number(re.headers.get('retry-after')) >= 5)
  t.equal(db.tenant('re').usage().rate_limited, 1)
  t.equal((await q('c1', 'items | count')).status, 200, 'another tenant\'s budget is its own')
})

t.test('statement limits stop a statement with their code and name it, embedded and over HTTP', async (t) => {
  const db = await open(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  await db.ops({ op: 'create', name: 'acme' })
  const a = db.tenant('acme')
  for (let i = 0; i < 4; i += 1) await a.query('insert items $rows', { rows: rows(1 + i * 5000, 5000, `row ${i} `.repeat(8)) })
  const q = (query: string) => call('/api/v1/t/acme/query', { json: { query } })

  await db.ops({ op: 'limit', name: 'acme', limits: { statement_rows_examined: 100 } })
  t.equal((await a.query('items | where id <= 50')).rows.length, 50, 'within the limit')
  const rowsErr = await refusal(() => a.query('items | where s == "none" | count'))
  t.same([rowsErr.code, rowsErr.details.limit], ['statement_limit', 'statement_rows_examined'])
  const rowsHttp = await q('items | where s == "none" | count')
  t.equal(rowsHttp.status, 400)
  t.match(rowsHttp.body, { code: 'statement_limit', limit: 'statement_rows_examined' })

  await db.ops({ op: 'limit', name: 'acme', limits: { statement_rows_examined: null, statement_memory_bytes: 10_000 } })
  const memErr = await refusal(() => a.query('items | sort s, id | take 10000'))
  t.same([memErr.code, memErr.details.limit], ['statement_limit', 'statement_memory_bytes'])
  const memHttp = await q('items | sort s, id | take 10000')
  t.equal(memHttp.status, 400)
  t.match(memHttp.body, { code: 'statement_limit', limit: 'statement_memory_bytes', error: /its limit statement_memory_bytes, in its sort/ })

  await db.ops({ op: 'limit', name: 'acme', limits: { statement_memory_bytes: null, statement_time_ms: 5 } })
  const timeErr = await refusal(() => a.query('items | where s != "q" | sort s desc, id | take 1'))
  t.same([timeErr.code, timeErr.details.limit], ['statement_limit', 'statement_time_ms'])
  const timeHttp = await q('items | where s != "q" | sort s desc, id | take 1')
  t.equal(timeHttp.status, 400)
  t.match(timeHttp.body, { code: 'statement_limit', limit: 'statement_time_ms', error: /ran past 5 ms, its limit statement_time_ms/ })
  t.ok(db.tenant('acme').usage().statement_limit >= 6, 'every stop counted in the usage')
})

t.test('a tenant\'s statement limit is never above the server\'s: the smaller applies', async (t) => {
  const db = await open(t, { defaults: { statement_rows_examined: 500 } })
  await db.ops({ op: 'create', name: 'acme' })
  const a = db.tenant('acme')
  await a.query('insert items $rows', { rows: rows(1, 1000) })
  await db.ops({ op: 'limit', name: 'acme', limits: { statement_rows_examined: 100_000 } })
  t.equal(a.usage().limits.statement_rows_examined, 500, 'raising it is capped at the server\'s')
  t.equal((await refusal(() => a.query('items | where s == "none" | count'))).details.limit, 'statement_rows_examined', 'a scan of 1000 rows past the server\'s 500')
  await db.ops({ op: 'limit', name: 'acme', limits: { statement_rows_examined: 100 } })
  t.equal(a.usage().limits.statement_rows_examined, 100, 'lowering it applies')
  t.equal((await refusal(() => a.query('items | where id <= 300 and s == "none" | count'))).code, 'statement_limit')
  t.same((await a.query('items | where id <= 50 and s == "none" | count')).rows, [[0]])
})

t.test('who sets limits: a tenant admin token is forbidden, the service token and Eel through db.run may; null resets', async (t) => {
  const db = await open(t, { defaults: { storage_rows: 1000 } })
  const { origin } = await startServer(t, { token, db })
  await db.ops({ op: 'create', name: 'acme' })
  const admin = (await issue(db, 'acme', 'admin')).token
  const asAdmin = await api(origin, admin)('/api/v1/t/acme/ops', { json: { op: 'limit', limits: { storage_rows: 1_000_000 } } })
  t.equal(asAdmin.status, 403)
  t.match(asAdmin.body, { code: 'forbidden' })
  t.same(db.tenant('acme').usage().own_limits, {}, 'the admin token changed nothing')
  const asService = await api(origin, token)('/api/v1/t/acme/ops', { json: { op: 'limit', limits: { storage_rows: 3 } } })
  t.equal(asService.status, 200)
  t.same(db.tenant('acme').usage().own_limits, { storage_rows: 3 })

  t.match(await db.run('tenant limit acme set storage_rows = 2, commits_per_s = 100'), { ok: true })
  t.same(db.tenant('acme').usage().own_limits, { storage_rows: 2, commits_per_s: 100 })
  t.equal((await refusal(() => db.run('insert items $rows', { rows: rows(1, 3) }, { tenant: 'acme' }))).code, 'quota_exceeded')
  await db.run('tenant limit acme set storage_rows = null')
  const usage = db.tenant('acme').usage()
  t.same(usage.own_limits, { commits_per_s: 100 })
  t.equal(usage.limits.storage_rows, 1000, 'back to the server\'s default')
  await db.run('insert items $rows', { rows: rows(1, 3) }, { tenant: 'acme' })
  t.same(await ids(db, 'acme'), [1, 2, 3])
  const listed = (await api(origin, token)('/api/v1/tenants')).body.tenants.find((x: { name: string }) => x.name === 'acme')
  t.same(listed.limits, { commits_per_s: 100 }, 'the tenants listing shows its own settings')
})
