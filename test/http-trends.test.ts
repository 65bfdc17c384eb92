// The trend ring (docs/api.md, "Trends"): what one second's sample counts (commits,
// conflicts, rows written, queries and their percentiles, fsyncs, node reads), the ring
// wrapping round at its capacity, `after`, and GET /api/v1/trends from a real server
// filling itself once a second while a writer runs.
import t from 'tap'
import { TrendRing, trend_figures, type TrendSample } from '../src/http/metrics/trend-ring.js'
import { bucketQuantile, nearestRank, TrendSampler } from '../src/http/metrics/trend-sampler.js'
import { trend_samples_max } from '../src/limits.js'
import { api, openExampleDatabase, startServer } from './helpers/http-server.js'
import { hang_guard_ms } from './helpers/poll.js'

const token = 'trends-token-0123456789abcdef'

function sampleAt(t: number): TrendSample {
  return Object.fromEntries(trend_figures.map((f) => [f, f === 't' ? t : t * 10])) as TrendSample
}

t.test('the ring keeps the newest samples, oldest first, and answers after a second', async (t) => {
  const ring = new TrendRing(3)
  t.same(ring.columns().t, [], 'empty')
  for (const second of [100, 101, 102, 103, 104]) ring.push(sampleAt(second))
  t.equal(ring.size, 3)
  const all = ring.columns()
  t.same(all.t, [102, 103, 104], 'the newest three, oldest first')
  t.same(all.commits, [1020, 1030, 1040], 'every figure in step with t')
  t.same(ring.columns(102).t, [103, 104], 'after is exclusive')
  t.same(ring.columns(104).t, [])
  t.same(ring.columns(1).t, [102, 103, 104], 'an after older than the ring: all of it')
  t.equal(new TrendRing().capacity, trend_samples_max, '20 minutes by default')
  t.ok(trend_samples_max * 1000 >= 15 * 60 * 1000, 'at least 15 minutes of one-second samples')
})

t.test('quantiles: nearest rank of durations, bucket bounds of syncs', async (t) => {
  t.equal(nearestRank([], 0.5), null)
  t.equal(nearestRank([1, 2, 3, 4], 0.5), 2)
  t.equal(nearestRank([1, 2, 3, 4], 0.99), 4)
  t.equal(nearestRank([7], 0.01), 7)
  const bounds = [50, 100, 250, null]
  t.equal(bucketQuantile(bounds, [0, 0, 0, 0], 0.5, 900), null, 'no syncs')
  t.equal(bucketQuantile(bounds, [1, 8, 1, 0], 0.5, 900), 100)
  t.equal(bucketQuantile(bounds, [1, 8, 1, 0], 0.99, 900), 250)
  t.equal(bucketQuantile(bounds, [0, 0, 1, 1], 0.99, 900), 900, 'the unbounded bucket: the slowest sync known')
  t.equal(bucketQuantile(bounds, [0, 0, 1, 0], 0.5, 120), 120, 'never above the slowest sync known')
})

t.test('one second\'s sample: commits, conflicts, rows, queries, fsyncs, node reads', async (t) => {
  const db = await openExampleDatabase(t)
  let readers = 2
  const sampler = new TrendSampler(db, () => readers, 3_600_000)
  t.teardown(() => sampler.close())
  const unobserve = db.observeCommits((settled) => sampler.commit(settled))
  t.teardown(unobserve)
  const tenant = db.tenant('default')
  // The tenant's lazy migration is a commit of its own: out of the way first.
  await tenant.query('users | count')
  sampler.sample()
  await tenant.query('insert users [{id: 1, email: "a@x", name: "A"}, {id: 2, email: "b@x", name: "B"}, {id: 3, email: "c@x", name: "C"}]')
  await tenant.query('users | where id == 1 | update {age: 3}')
  // Two writes of one row from the same snapshot: the second to commit loses.
  const raced = await Promise.allSettled([
    tenant.query('atomic { users | where id == 2 | update {age: 1}; users | where id == 2 | update {age: 2} }'),
    tenant.query('users | where id == 2 | update {age: 5}'),
  ])
  const conflicts = raced.filter((r) => r.status === 'rejected').length
  for (const ms of [1, 2, 3, 100]) sampler.query(ms)
  await tenant.query('users | where id == 3')
  readers = 5
  const s = sampler.sample(1_717_000_000_500)
  t.equal(s.t, 1_717_000_001, 'the end of the second, in Unix seconds')
  t.equal(s.commits, 4 - conflicts, 'every commit that became durable')
  t.equal(s.conflicts, conflicts, 'and those that lost a race')
  t.equal(s.rows_written, 3 + 1 + (conflicts === 0 ? 3 : raced[0]?.status === 'fulfilled' ? 2 : 1), 'the rows those commits wrote')
  t.equal(s.queries, 4)
  t.equal(s.query_p50_ms, 2)
  t.equal(s.query_p99_ms, 100)
  t.ok(Number(s.fsyncs) >= 1 && Number(s.fsyncs) <= Number(s.commits), `durable syncs: ${s.fsyncs} (racing commits may share one)`)
  t.ok(s.fsync_p50_us !== null && s.fsync_p99_us !== null && s.fsync_p99_us >= s.fsync_p50_us)
  t.ok(Number(s.memory_reads) > 0, 'reads of rows written since the last checkpoint')
  t.equal(s.cache_hits, 0)
  t.equal(s.cache_misses, 0)
  t.equal(s.tail_subscribers, 5)
  t.equal(s.wal_bytes, db.healthDetail().wal.bytes)
  t.equal(s.page_file_bytes, db.stats().pages.file_bytes)
  const idle = sampler.sample()
  t.match(idle, { commits: 0, conflicts: 0, rows_written: 0, queries: 0, query_p50_ms: null, fsyncs: 0, fsync_p50_us: null, checkpoints: 0 }, 'a quiet second')
  t.equal(sampler.ring.size, 3)
})

t.test('a second with more queries than it keeps durations of still counts them all', async (t) => {
  const db = await openExampleDatabase(t)
  const sampler = new TrendSampler(db, () => 0, 3_600_000)
  t.teardown(() => sampler.close())
  for (let i = 0; i < 10_000; i += 1) sampler.query(i % 2 === 0 ? 1 : 3)
  const s = sampler.sample()
  t.equal(s.queries, 10_000)
  t.ok(s.query_p50_ms === 1 || s.query_p50_ms === 3, 'a percentile of a sample of them')
  t.equal(s.query_p99_ms, 3)
})

t.test('GET /api/v1/trends: columns that grow once a second, and after', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  let first: { t: number[]; commits: number[] } = { t: [], commits: [] }
  let id = 0
  const deadline = Date.now() + hang_guard_ms
  while (Date.now() < deadline) {
    id += 1
    t.equal((await call('/api/v1/t/default/query', { json: { query: `insert orders {id: ${id}, user: 1, amount: 1}` } })).status, 200)
    const res = await call('/api/v1/trends')
    first = res.body.series
    if (first.commits.some((n) => n > 0) && first.t.length >= 2) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const res = await call('/api/v1/trends')
  t.equal(res.status, 200)
  t.equal(res.body.interval_ms, 1000)
  t.equal(res.body.capacity, trend_samples_max)
  const series = res.body.series as Record<string, number[]>
  t.same(Object.keys(series).sort(), [...trend_figures].sort(), 'every figure')
  for (const figure of trend_figures) t.equal(series[figure]?.length, series.t?.length, `${figure}: one value per second`)
  t.ok(series.commits?.some((n) => n > 0), 'the commits are counted')
  t.ok(series.queries?.some((n) => n > 0), 'and the queries')
  const times = series.t ?? []
  t.same([...times].sort((a, b) => a - b), times, 'oldest first')
  const last = times[times.length - 1] ?? 0
  const after = await call(`/api/v1/trends?after=${last}`)
  t.ok(after.body.series.t.every((s: number) => s > last), 'after: only newer seconds')
  const bad = await call('/api/v1/trends?after=-1')
  t.equal(bad.status, 400)
  t.match(bad.body, { code: 'bad_request' })
})
