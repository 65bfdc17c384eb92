// Each tenant's usage over HTTP (docs/api.md, "Usage"; docs/operations.md, "Metrics"):
// the usage route answers tenant.usage() to the service token and to a read token of
// its own tenant, and answers a token of another tenant as an unknown tenant; the
// metrics name the --metrics-tenants busiest tenants and sum the rest as `other`
// (none named with 0), and promtool accepts them; the health detail shows the server's
// defaults and the busiest tenants, the stats the refusals by code.
import t from 'tap'
import { api, openExampleDatabase, startServer } from './helpers/http-server.js'
import { parseExposition, sampleValue, type Exposition } from './helpers/prometheus-text.js'
import { promtoolCheckMetrics } from './helpers/promtool.js'
import { issue } from './helpers/tenant-tokens.js'

const token = 'tenant-usage-token-0123456789abcdef'

async function scrape(origin: string): Promise<{ text: string; m: Exposition }> {
  const res = await fetch(`${origin}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } })
  if (res.status !== 200) throw new Error(`metrics answered ${res.status}`)
  const text = await res.text()
  return { text, m: parseExposition(text) }
}

/** The tenant label values of `name`'s samples. */
const tenantsOf = (m: Exposition, name: string) => new Set(m.samples.filter((s) => s.name === name).map((s) => s.labels.tenant))

t.test('the usage route: what the tenant used, held and may; a read token of its own tenant reads it, another tenant\'s token meets 404', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  for (const name of ['acme', 'globex']) t.equal((await call('/api/v1/t/default/ops', { json: { op: 'create', name } })).status, 200)
  t.equal((await call('/api/v1/t/acme/query', { json: { query: 'insert users [{id: 1, email: "a@x", name: "A"}, {id: 2, email: "b@x", name: "B"}]' } })).status, 200)
  t.equal((await call('/api/v1/t/acme/ops', { json: { op: 'limit', limits: { commits_per_s: 100 } } })).status, 200)

  const read = (await issue(db, 'acme', 'read')).token
  const globex = (await issue(db, 'globex', 'admin')).token
  const mine = await api(origin, read)('/api/v1/t/acme/usage')
  t.equal(mine.status, 200, 'a read token of acme reads acme\'s usage')
  t.match(mine.body, { tenant: 'acme', statements: 1, rows_written: 2, commits: 1, live_rows: Number, live_bytes: Number, own_limits: { commits_per_s: 100 }, limits: { commits_per_s: 100 } })
  t.ok(mine.body.live_rows >= 2 && mine.body.live_bytes > 0, `what it holds: ${mine.body.live_rows} rows, ${mine.body.live_bytes} bytes`)
  t.same(mine.body, db.tenant('acme').usage(), 'as tenant.usage() says')

  const theirs = await api(origin, globex)('/api/v1/t/acme/usage')
  t.equal(theirs.status, 404, 'a token of globex is answered as for an unknown tenant')
  t.equal(theirs.body.code, 'unknown_tenant')
  t.equal((await call('/api/v1/t/nobody/usage')).body.code, 'unknown_tenant', 'the service token and a tenant that does not exist')
  t.equal((await call('/api/v1/t/globex/usage')).body.rows_written, 0, 'the service token reads any tenant\'s')
})

t.test('metrics: --metrics-tenants 1 names the busiest tenant and sums the rest as other', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db, metricsTenants: 1 })
  const call = api(origin, token)
  for (const name of ['acme', 'globex']) await db.ops({ op: 'create', name })
  const insert = (tenant: string, from: number, n: number) => call(`/api/v1/t/${tenant}/query`, {
    json: { query: `insert users [${Array.from({ length: n }, (_, i) => `{id: ${from + i}, email: "u${from + i}@x", name: "n"}`).join(', ')}]` },
  })
  t.equal((await insert('acme', 1, 5)).status, 200)
  t.equal((await insert('globex', 1, 2)).status, 200)
  t.equal((await insert('default', 1, 1)).status, 200)

  const { text, m } = await scrape(origin)
  t.same(tenantsOf(m, 'tenantdb_tenant_rows_written_total'), new Set(['acme', 'other']), 'the busiest by name, the rest as other')
  t.equal(sampleValue(m, 'tenantdb_tenant_rows_written_total', { tenant: 'acme' }), 5)
  t.equal(sampleValue(m, 'tenantdb_tenant_rows_written_total', { tenant: 'other' }), 3, 'globex\'s and default\'s summed')
  t.equal(sampleValue(m, 'tenantdb_tenant_statements_total', { tenant: 'other' }), 2)
  t.equal(sampleValue(m, 'tenantdb_tenant_commits_total', { tenant: 'acme' }), 1)
  t.ok(sampleValue(m, 'tenantdb_tenant_bytes_written_total', { tenant: 'acme' }) > 0)
  t.ok(sampleValue(m, 'tenantdb_tenant_statement_seconds_total', { tenant: 'acme' }) > 0)
  t.equal(sampleValue(m, 'tenantdb_tenant_budget_wait_seconds_total', { tenant: 'acme' }), 0)
  t.equal(sampleValue(m, 'tenantdb_tenant_live_rows', { tenant: 'acme' }), db.tenant('acme').usage().live_rows)
  t.equal(sampleValue(m, 'tenantdb_tenant_live_bytes', { tenant: 'other' }), db.tenant('globex').usage().live_bytes + db.tenant('default').usage().live_bytes)
  for (const code of ['rate_limited', 'quota_exceeded', 'statement_limit']) t.equal(sampleValue(m, 'tenantdb_tenant_refusals_total', { tenant: 'acme', code }), 0, code)
  const lint = await promtoolCheckMetrics(text)
  t.equal(lint.output.trim(), '', 'promtool finds no problem')

  // globex overtakes acme: the name moves, the counts with it.
  t.equal((await insert('globex', 10, 6)).status, 200)
  const after = (await scrape(origin)).m
  t.same(tenantsOf(after, 'tenantdb_tenant_rows_written_total'), new Set(['globex', 'other']))
  t.equal(sampleValue(after, 'tenantdb_tenant_rows_written_total', { tenant: 'globex' }), 8)
  t.equal(sampleValue(after, 'tenantdb_tenant_rows_written_total', { tenant: 'other' }), 6)
})

t.test('metrics: --metrics-tenants 0 names no tenant', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db, metricsTenants: 0 })
  await db.ops({ op: 'create', name: 'acme' })
  await db.tenant('acme').query('insert users {id: 1, email: "a@x", name: "A"}')
  const { m } = await scrape(origin)
  t.same(tenantsOf(m, 'tenantdb_tenant_rows_written_total'), new Set(['other']))
  t.equal(sampleValue(m, 'tenantdb_tenant_rows_written_total', { tenant: 'other' }), 1)
})

t.test('health detail: the defaults and the busiest tenants; stats: refusals by code', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db, metricsTenants: 1 })
  const call = api(origin, token)
  await db.ops({ op: 'create', name: 'acme' })
  await db.tenant('acme').query('insert users [{id: 1, email: "a@x", name: "A"}, {id: 2, email: "b@x", name: "B"}, {id: 3, email: "c@x", name: "C"}]')
  t.equal((await call('/api/v1/t/acme/ops', { json: { op: 'limit', limits: { statement_rows_examined: 1 } } })).status, 200)
  const refused = await call('/api/v1/t/acme/query', { json: { query: 'users | where name == "C"' } })
  t.equal(refused.body.code, 'statement_limit', `a scan over the limit is stopped: ${JSON.stringify(refused.body)}`)

  const detail = (await call('/api/v1/health/detail')).body
  t.same(detail.isolation.defaults, {}, 'no defaults set')
  t.type(detail.isolation.budget_wait_ms_max, 'number')
  t.same(detail.isolation.busiest.map((u: { tenant: string }) => u.tenant), ['acme'], 'one tenant named')
  t.match(detail.isolation.busiest[0], { rows_written: 3, statement_limit: 1, own_limits: { statement_rows_examined: 1 } })
  t.match(detail.isolation.other, { tenants: 1, statement_limit: 0 }, 'default summed as the rest')
  const stats = (await call('/api/v1/stats')).body
  t.same(stats.refusals, { rate_limited: 0, quota_exceeded: 0, statement_limit: 1 })
})
