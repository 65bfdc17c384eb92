// The metrics route (docs/operations.md, "Metrics") over a real server and database: the
// answer parses as the Prometheus text exposition format with a parser of its own
// (helpers/prometheus-text.ts), counters move by what the test did between two scrapes
// (queries, commits, change-tail events, migrations), Prometheus's own promtool accepts
// the answer without a lint problem (helpers/promtool.ts), the route needs the token like
// every /api route, and no label value ever holds a query string, a path a client sent
// or a tenant's name (but for the per-tenant series' `tenant`, which names the
// --metrics-tenants busiest: test/http-tenant-usage.test.ts; 0 here names none).
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import { registeredRoutes } from '../src/http/index.js'
import { api, openExampleDatabase, startServer } from './helpers/http-server.js'
import { hang_guard_ms, pollUntil } from './helpers/poll.js'
import { parseExposition, sampleValue, sampleValueOrZero, type Exposition } from './helpers/prometheus-text.js'
import { promtoolCheckMetrics } from './helpers/promtool.js'
import { tempDir } from './helpers/temp-dir.js'

// `ws` ships no types: the little of it this test uses.
interface WsClient {
  on(event: 'open' | 'close', listener: () => void): void
  on(event: 'message', listener: (data: Buffer) => void): void
  on(event: 'error', listener: (err: Error) => void): void
  close(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WsClient

const token = 'metrics-token-0123456789abcdefXYZ'
const exposition_type = 'text/plain; version=0.0.4; charset=utf-8'

async function scrape(origin: string): Promise<Exposition> {
  const res = await fetch(`${origin}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } })
  if (res.status !== 200) throw new Error(`metrics answered ${res.status}: ${await res.text()}`)
  return parseExposition(await res.text())
}

const query_route = '/api/v1/t/:tenant/query'
const tail_route = '/api/v1/t/:tenant/tail'

t.test('metrics: the answer parses as the exposition format, every family typed and described, histograms whole', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'insert users {id: 1, email: "a@x", name: "A"}' } })).status, 200)

  const res = await fetch(`${origin}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), exposition_type, 'the text format\'s content type')
  const text = await res.text()
  const { families, samples } = parseExposition(text)

  const names = families.filter((f) => f.metrics.length > 0 || f.type !== 'UNTYPED').map((f) => f.name)
  for (const name of [
    'tenantdb_http_requests_total', 'tenantdb_http_request_duration_seconds', 'tenantdb_commits_total', 'tenantdb_commit_duration_seconds',
    'tenantdb_fsync_duration_seconds', 'tenantdb_wal_bytes', 'tenantdb_wal_lag_bytes', 'tenantdb_wal_checkpoint_lsn', 'tenantdb_wal_current_lsn',
    'tenantdb_page_file_bytes', 'tenantdb_pages', 'tenantdb_page_cache_hits_total', 'tenantdb_page_cache_misses_total', 'tenantdb_memory_node_reads_total', 'tenantdb_corruption_detections_total',
    'tenantdb_engine_fail_stopped', 'tenantdb_tenants', 'tenantdb_tail_subscribers', 'tenantdb_tail_events_sent_total', 'tenantdb_migrations_applied_total', 'tenantdb_migrations_blocked',
  ]) t.ok(names.includes(name), `${name} is exposed`)
  for (const family of families) {
    t.ok(['COUNTER', 'GAUGE', 'HISTOGRAM'].includes(family.type), `${family.name} has a TYPE (${family.type})`)
    t.not(family.help, '', `${family.name} has a HELP`)
    t.match(family.name, /^tenantdb_[a-z_]+$/, `${family.name}: one prefix, a valid name`)
    if (family.type === 'COUNTER') t.match(family.name, /_total$/, `${family.name}: a counter ends in _total`)
  }
  t.equal(new Set(families.map((f) => f.name)).size, families.length, 'each family once')

  // Every histogram series: buckets cumulative, ending in +Inf, which is its _count.
  const histograms = families.filter((f) => f.type === 'HISTOGRAM').map((f) => f.name)
  t.ok(histograms.length >= 3, `${histograms.length} histograms`)
  for (const name of histograms) {
    const buckets = samples.filter((s) => s.name === `${name}_bucket`)
    const series = new Map<string, Array<{ le: number; value: number }>>()
    for (const b of buckets) {
      const { le, ...rest } = b.labels
      t.ok(le !== undefined, `${name}_bucket has le`)
      const key = JSON.stringify(rest)
      series.set(key, [...(series.get(key) ?? []), { le: le === '+Inf' ? Infinity : Number(le), value: b.value }])
    }
    t.ok(series.size > 0, `${name} has a series`)
    for (const [key, list] of series) {
      const labels = JSON.parse(key) as Record<string, string>
      for (let i = 1; i < list.length; i += 1) {
        t.ok((list[i] as { le: number }).le > (list[i - 1] as { le: number }).le, `${name}${key}: le ascending`)
        t.ok((list[i] as { value: number }).value >= (list[i - 1] as { value: number }).value, `${name}${key}: cumulative`)
      }
      t.equal(list.at(-1)?.le, Infinity, `${name}${key}: ends in +Inf`)
      t.equal(list.at(-1)?.value, sampleValue({ families, samples }, `${name}_count`, labels), `${name}${key}: +Inf is _count`)
      t.ok(sampleValue({ families, samples }, `${name}_sum`, labels) >= 0, `${name}${key}: has _sum`)
    }
  }
})

t.test('metrics: promtool check metrics accepts the answer, with no lint problem', async (t) => {
  // A control first: this promtool lints, so a clean answer below means something.
  const bad = await promtoolCheckMetrics('# HELP tenantdb_x_count A gauge with a reserved suffix.\n# TYPE tenantdb_x_count gauge\ntenantdb_x_count 1\n')
  t.not(bad.code, 0, 'promtool refuses a gauge named *_count')
  t.match(bad.output, /tenantdb_x_count.*_count/, `and names it: ${bad.output.trim()}`)

  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  // Every labelled family gets a series: answered, refused and tail requests, each kind of commit.
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'insert users {id: 1, email: "a@x", name: "A"}' } })).status, 200)
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'users | wher id == 1' } })).status, 400)
  t.equal((await call('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })).status, 200)
  t.equal((await call('/api/v1/t/default/tail?after=0')).status, 200)
  const res = await fetch(`${origin}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 200)
  const text = await res.text()
  t.match(text, /tenantdb_http_requests_total\{/, 'labelled series are in the answer')
  const check = await promtoolCheckMetrics(text)
  t.equal(check.code, 0, 'promtool check metrics exits 0')
  t.equal(check.output, '', 'and prints no problem')
})

t.test('metrics: the engine figures are the ones health detail and stats report', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  await call('/api/v1/t/default/query', { json: { query: 'insert users [{id: 1, email: "a@x", name: "A"}, {id: 2, email: "b@x", name: "B"}]' } })
  // A checkpoint, then a commit after it: the WAL holds more than recovery would replay,
  // and the checkpoint's LSN is behind the newest.
  await internalsOf(db).engine.checkpoint()
  await call('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })
  const m = await scrape(origin)
  // Nothing writes between the scrape and these reads.
  const detail = db.healthDetail()
  const stats = db.stats()
  t.ok(detail.wal.lag_bytes > 0 && detail.wal.lag_bytes < detail.wal.bytes, `WAL ${detail.wal.bytes} bytes, ${detail.wal.lag_bytes} after the checkpoint`)
  t.ok(detail.wal.checkpoint_lsn > 0 && detail.wal.checkpoint_lsn < detail.wal.current_lsn, `checkpoint at ${detail.wal.checkpoint_lsn}, head at ${detail.wal.current_lsn}`)
  t.equal(detail.checkpoints.count, 1, 'one checkpoint')
  t.equal(sampleValue(m, 'tenantdb_wal_bytes'), detail.wal.bytes)
  t.equal(sampleValue(m, 'tenantdb_wal_lag_bytes'), detail.wal.lag_bytes)
  t.equal(sampleValue(m, 'tenantdb_wal_current_lsn'), detail.wal.current_lsn)
  t.equal(sampleValue(m, 'tenantdb_wal_checkpoint_lsn'), detail.wal.checkpoint_lsn)
  t.equal(sampleValue(m, 'tenantdb_page_file_bytes'), detail.pages.file_bytes)
  for (const state of ['live', 'free', 'pending', 'releasing'] as const) t.equal(sampleValue(m, 'tenantdb_pages', { state }), detail.pages[state], `pages ${state}`)
  t.equal(sampleValue(m, 'tenantdb_corruption_detections_total'), detail.corruption.total)
  t.equal(detail.fail_stopped, null)
  t.equal(sampleValue(m, 'tenantdb_engine_fail_stopped'), 0, 'the engine writes (test/http-engine-panic.test.ts: 1 once stopped)')
  t.equal(sampleValue(m, 'tenantdb_tenants'), 2, 'default and acme')
  t.equal(sampleValue(m, 'tenantdb_page_cache_hits_total'), stats.cache.hits)
  t.equal(sampleValue(m, 'tenantdb_page_cache_misses_total'), stats.cache.misses)
  // Reading the stats reads the catalog, itself in memory: the count only grows.
  t.ok(sampleValue(m, 'tenantdb_memory_node_reads_total') <= stats.cache.memory_reads, 'memory reads as the engine counts them')
  t.equal(sampleValue(m, 'tenantdb_checkpoints_total'), detail.checkpoints.count)
  // The engine's own fsync buckets, cumulated; its count and sum.
  t.ok(detail.fsync.count >= 3, `commits were synced (${detail.fsync.count})`)
  t.equal(sampleValue(m, 'tenantdb_fsync_duration_seconds_count'), detail.fsync.count)
  t.equal(sampleValue(m, 'tenantdb_fsync_duration_seconds_sum'), detail.fsync.sum_micros / 1e6)
  let cumulative = 0
  for (const bucket of detail.fsync.buckets) {
    cumulative += bucket.count
    const le = bucket.le_micros === null ? '+Inf' : String(bucket.le_micros / 1e6)
    t.equal(sampleValue(m, 'tenantdb_fsync_duration_seconds_bucket', { le }), cumulative, `fsync bucket le=${le}`)
  }
})

t.test('metrics: counters move with requests, commits, reads and the change tail', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const requests = (m: Exposition, route: string, method: string, status: string) =>
    sampleValueOrZero(m, 'tenantdb_http_requests_total', { route, method, status })
  const commits = (m: Exposition, kind: string, outcome: string) => sampleValue(m, 'tenantdb_commits_total', { kind, outcome })

  const m0 = await scrape(origin)
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'insert users {id: 1, email: "a@x", name: "A"}' } })).status, 200)
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'insert users {id: 2, email: "b@x", name: "B"}' } })).status, 200)
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'users | wher id == 1' } })).status, 400)
  t.equal((await call('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })).status, 200)
  const m1 = await scrape(origin)
  t.equal(requests(m1, query_route, 'POST', '200') - requests(m0, query_route, 'POST', '200'), 2, 'two answered queries')
  t.equal(requests(m1, query_route, 'POST', '400') - requests(m0, query_route, 'POST', '400'), 1, 'one refused query')
  t.equal(requests(m1, '/api/v1/t/:tenant/ops', 'POST', '200') - requests(m0, '/api/v1/t/:tenant/ops', 'POST', '200'), 1, 'one operation')
  t.equal(requests(m1, '/api/v1/metrics', 'GET', '200') - requests(m0, '/api/v1/metrics', 'GET', '200'), 1, 'the first scrape itself')
  t.equal(sampleValue(m1, 'tenantdb_http_request_duration_seconds_count', { route: query_route, method: 'POST' }) -
    sampleValueOrZero(m0, 'tenantdb_http_request_duration_seconds_count', { route: query_route, method: 'POST' }), 3, 'three query durations')
  t.equal(commits(m1, 'write', 'committed') - commits(m0, 'write', 'committed'), 2, 'two write commits')
  t.equal(commits(m1, 'catalog', 'committed') - commits(m0, 'catalog', 'committed'), 1, 'one catalog commit')
  t.equal(commits(m1, 'write', 'failed') - commits(m0, 'write', 'failed'), 0, 'none failed')
  t.equal(sampleValue(m1, 'tenantdb_commit_duration_seconds_count', { kind: 'write' }) - sampleValue(m0, 'tenantdb_commit_duration_seconds_count', { kind: 'write' }), 2, 'two write durations')
  t.ok(sampleValue(m1, 'tenantdb_commit_duration_seconds_sum', { kind: 'write' }) > sampleValue(m0, 'tenantdb_commit_duration_seconds_sum', { kind: 'write' }), 'their time added up')
  t.ok(sampleValue(m1, 'tenantdb_fsync_duration_seconds_count') > sampleValue(m0, 'tenantdb_fsync_duration_seconds_count'), 'the commits were synced')
  t.ok(sampleValue(m1, 'tenantdb_wal_current_lsn') >= sampleValue(m0, 'tenantdb_wal_current_lsn') + 3, 'the WAL moved by three commits')
  t.equal(sampleValue(m1, 'tenantdb_tenants') - sampleValue(m0, 'tenantdb_tenants'), 1, 'one tenant more')

  // Lost races: updates of one row at once overlap (each one's snapshot is taken while
  // another's commit waits for its fsync); rounds repeat until one has lost.
  const tenant = db.tenant('default')
  let won = 0
  let lost = 0
  for (let round = 0; lost === 0 && round < 100; round += 1) {
    const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => tenant.query(`users | where id == 1 | update {name: "r${round}-${i}"}`)))
    for (const r of results) {
      if (r.status === 'fulfilled') won += 1
      else if ((r.reason as { code?: unknown }).code === 'conflict') lost += 1
      else throw r.reason
    }
  }
  t.ok(lost > 0, `some updates lost the race (${lost}, ${won} won)`)
  const m2 = await scrape(origin)
  t.equal(commits(m2, 'write', 'conflict') - commits(m1, 'write', 'conflict'), lost, 'every lost race counted as a conflict')
  t.equal(commits(m2, 'write', 'committed') - commits(m1, 'write', 'committed'), won, 'every other one as committed')

  // The change tail: a poll, then a WebSocket that gets the backlog and a live event.
  const events = (m: Exposition, transport: string) => sampleValue(m, 'tenantdb_tail_events_sent_total', { transport })
  const subscribers = (m: Exposition, transport: string) => sampleValue(m, 'tenantdb_tail_subscribers', { transport })
  const page = await call('/api/v1/t/default/tail?after=0')
  t.equal(page.status, 200)
  const polled = (page.body as { events: unknown[] }).events.length
  t.ok(polled >= 2, `the poll answered ${polled} events`)
  const m4 = await scrape(origin)
  t.equal(events(m4, 'poll') - events(m2, 'poll'), polled, 'the polled events counted')
  t.equal(subscribers(m4, 'poll'), 0, 'no poll in progress')

  const received: unknown[] = []
  const socket = new WebSocket(`${origin.replace('http', 'ws')}/api/v1/t/default/tail?after=0&token=${token}`)
  const closed = new Promise<void>((resolve) => socket.on('close', resolve))
  socket.on('message', (data) => received.push(JSON.parse(data.toString('utf8'))))
  socket.on('error', () => {})
  await new Promise<void>((resolve, reject) => { socket.on('open', resolve); socket.on('error', reject) })
  await pollUntil(() => received.length >= polled, 'the backlog over the WebSocket')
  const m5 = await scrape(origin)
  t.equal(subscribers(m5, 'websocket') - subscribers(m4, 'websocket'), 1, 'one WebSocket tail open')
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'insert users {id: 3, email: "c@x", name: "C"}' } })).status, 200)
  await pollUntil(() => received.length >= polled + 1, 'the live event')
  const m6 = await scrape(origin)
  t.equal(events(m6, 'websocket') - events(m4, 'websocket'), received.length, `every event sent counted (${received.length})`)
  socket.close()
  await closed
  // The server hears the close a moment after the client: scrape until it has.
  let after = await scrape(origin)
  const deadline = Date.now() + hang_guard_ms
  while (subscribers(after, 'websocket') !== 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    after = await scrape(origin)
  }
  t.equal(subscribers(after, 'websocket'), 0, 'no WebSocket tail open once it closed')
  t.equal(requests(after, tail_route, 'GET', '101') - requests(m0, tail_route, 'GET', '101'), 1, 'the upgraded request counted when it closed')
})

t.test('metrics: page cache misses, then hits, for rows read from the page file', async (t) => {
  // Rows written since the last checkpoint are read from memory; after a reopen (the
  // close checkpoints) they come from the page file, through the cache.
  const dir = tempDir(t)
  const schema = join(dir, 's.eel')
  writeFileSync(schema, 'collection c { id: int primary, v: string }\n')
  const first = await Database.open(join(dir, 'db'), { schema: [schema] })
  await first.tenant('default').query('insert c [{id: 1, v: "a"}, {id: 2, v: "b"}]')
  await first.close()
  const db = await Database.open(join(dir, 'db'), { schema: [schema] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const read = async () => t.equal((await call('/api/v1/t/default/query', { json: { query: 'c | where id == 2' } })).status, 200)
  const m0 = await scrape(origin)
  await read()
  const m1 = await scrape(origin)
  t.ok(sampleValue(m1, 'tenantdb_page_cache_misses_total') > sampleValue(m0, 'tenantdb_page_cache_misses_total'), 'the first read went to the page file')
  await read()
  const m2 = await scrape(origin)
  t.ok(sampleValue(m2, 'tenantdb_page_cache_hits_total') > sampleValue(m1, 'tenantdb_page_cache_hits_total'), 'the same read again met the cache')
  t.equal(sampleValue(m2, 'tenantdb_page_cache_misses_total'), sampleValue(m1, 'tenantdb_page_cache_misses_total'), 'and missed nothing')
})

t.test('metrics: reads of rows written since the last checkpoint are memory reads, not cache hits or misses', async (t) => {
  const { origin, db } = await startServer(t, { token, db: await openExampleDatabase(t) })
  const call = api(origin, token)
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'insert users {id: 1, email: "a@x", name: "A"}' } })).status, 200)
  const m0 = await scrape(origin)
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'users | where id == 1' } })).status, 200)
  const m1 = await scrape(origin)
  t.ok(sampleValue(m1, 'tenantdb_memory_node_reads_total') > sampleValue(m0, 'tenantdb_memory_node_reads_total'), 'the read is counted')
  t.equal(sampleValue(m1, 'tenantdb_page_cache_hits_total') + sampleValue(m1, 'tenantdb_page_cache_misses_total'), 0, 'no page of the file was read: nothing was checkpointed yet')
  t.equal(db.stats().cache.hits + db.stats().cache.misses, 0)
})

t.test('metrics: migrations applied and blocked', async (t) => {
  const dir = tempDir(t)
  const v1 = join(dir, 'v1.eel')
  const v2 = join(dir, 'v2.eel')
  writeFileSync(v1, 'collection users { id: int primary, email: string }\n')
  writeFileSync(v2, 'collection users { id: int primary, email: string unique, name: string = "" }\n')
  const before = await Database.open(join(dir, 'db'), { schema: [v1] })
  for (const name of ['ok', 'dup']) await before.ops({ op: 'create', name })
  await before.tenant('ok').query('insert users [{id: 1, email: "a"}, {id: 2, email: "b"}]')
  await before.tenant('dup').query('insert users [{id: 1, email: "same"}, {id: 2, email: "same"}]')
  await before.close()

  const db = await Database.open(join(dir, 'db'), { schema: [v2] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const m0 = await scrape(origin)
  t.equal(sampleValue(m0, 'tenantdb_migrations_blocked'), 0, 'nothing known blocked before the check')
  const blocked = await db.blockedMigrations()
  t.same(blocked.map((b) => b.tenant), ['dup'], 'the check finds one')
  const m1 = await scrape(origin)
  t.equal(sampleValue(m1, 'tenantdb_migrations_blocked'), 1, 'one tenant blocked')
  t.equal(sampleValue(m1, 'tenantdb_migrations_applied_total'), sampleValue(m0, 'tenantdb_migrations_applied_total'), 'the check applied nothing')

  t.equal((await call('/api/v1/t/ok/query', { json: { query: 'users' } })).status, 200)
  t.match((await call('/api/v1/t/dup/query', { json: { query: 'users' } })).body, { code: 'migration_blocked' })
  t.equal((await call('/api/v1/t/default/query', { json: { query: 'users' } })).status, 200)
  const m2 = await scrape(origin)
  t.equal(sampleValue(m2, 'tenantdb_migrations_applied_total') - sampleValue(m1, 'tenantdb_migrations_applied_total'), 2, 'ok and default migrated on first touch')
  t.equal(sampleValue(m2, 'tenantdb_commits_total', { kind: 'migration', outcome: 'committed' }) - sampleValue(m1, 'tenantdb_commits_total', { kind: 'migration', outcome: 'committed' }), 2, 'as two migration commits')
  t.equal(sampleValue(m2, 'tenantdb_migrations_blocked'), 1, 'dup still blocked')
})

t.test('metrics: the route needs the token, and takes it as Prometheus sends it', async (t) => {
  const { origin } = await startServer(t, { token })
  const none = await fetch(`${origin}/api/v1/metrics`)
  t.equal(none.status, 401)
  t.equal(none.headers.get('www-authenticate'), 'Bearer')
  t.match(await none.json(), { code: 'unauthorized' })
  const wrong = await fetch(`${origin}/api/v1/metrics`, { headers: { authorization: `Bearer ${token.replace(/.$/, '_')}` } })
  t.equal(wrong.status, 401)
  t.notMatch(await wrong.text(), /tenantdb_/, 'no metric in a refusal')
  const bearer = await fetch(`${origin}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(bearer.status, 200, 'Authorization: Bearer (bearer_token_file)')
  await bearer.arrayBuffer()
})

t.test('metrics: label values are route patterns and fixed names, never a path, tenant or query string', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin, app } = await startServer(t, { token, db, metricsTenants: 0 })
  const tenantName = 'secret-tenant-name'
  const call = api(origin, token)
  t.equal((await call('/api/v1/t/default/ops', { json: { op: 'create', name: tenantName } })).status, 200)
  const paths = [
    `/api/v1/t/${tenantName}/query?token=${token}&x=1`,
    `/api/v1/t/${tenantName}/collections?token=${token}`,
    `/api/v1/t/no-such-tenant-xyz/collections?token=${token}`,
    `/api/v1/t/${tenantName}/tail?after=0&token=${token}`,
    `/api/v1/not/a/route/${tenantName}?token=${token}`,
    `/api/v1/health?token=${token}&probe=query-string-value`,
    `/elsewhere/${tenantName}?q=1`,
  ]
  for (const path of paths) await (await fetch(origin + path, path.includes('/query') ? { method: 'POST', body: 'users' } : {})).arrayBuffer()
  const m = await scrape(origin)

  const patterns = new Set(registeredRoutes(app).map((r) => r.url))
  const routes = new Set(m.samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route as string))
  t.ok(routes.has('/api/v1/t/:tenant/query') && routes.has('/api/v1/t/:tenant/collections') && routes.has('unmatched'), `the routes seen: ${[...routes].join(', ')}`)
  for (const route of routes) t.ok(route === 'unmatched' || patterns.has(route), `route label ${route} is a registered pattern`)
  const values = m.samples.flatMap((s) => Object.values(s.labels))
  for (const forbidden of ['?', token, tenantName, 'no-such-tenant', 'query-string-value', '/not/a/route', '/elsewhere']) {
    t.same(values.filter((v) => v.includes(forbidden)), [], `no label value holds ${JSON.stringify(forbidden)}`)
  }
  const statuses = new Set(m.samples.filter((s) => s.name === 'tenantdb_http_requests_total').map((s) => s.labels.status))
  t.ok(statuses.has('404') && statuses.has('200'), `statuses seen: ${[...statuses].join(', ')}`)
})
