// The requests' series (src/http/metrics/request-counts.ts, docs/operations.md
// "Metrics") are counted without prom-client's per-call label objects, and read into
// the exposition at scrape time: the text must be the one prom-client's own Counter and
// Histogram write for the same requests, line for line (series in any order).
import t from 'tap'
import { Counter, Histogram, Registry } from 'prom-client'
import { RequestCounts } from '../src/http/metrics/request-counts.js'

const bounds = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '').sort()
}

t.test('request counts: the same exposition as prom-client Counter and Histogram', async (t) => {
  const ours = new Registry()
  const counts = new RequestCounts(ours, bounds)
  const theirs = new Registry()
  const counter = new Counter({ name: 'tenantdb_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status.', labelNames: ['route', 'method', 'status'], registers: [theirs] })
  const histogram = new Histogram({ name: 'tenantdb_http_request_duration_seconds', help: 'Time from a request\'s arrival until its answer was sent (a WebSocket tail: until it closed), by route pattern and method.', labelNames: ['route', 'method'], buckets: bounds, registers: [theirs] })

  const routes = ['/api/v1/t/:tenant/query', '/api/v1/health', 'unmatched', '/api/v1/t/:tenant/tail']
  const methods = ['GET', 'POST', 'HEAD']
  const statuses = [200, 201, 400, 401, 404, 101]
  let seed = 7
  const next = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed >> 12 }
  // Every bucket edge exactly, values between, and beyond the last bound.
  const durations = [...bounds, 0, 0.00005, 0.003, 31, 120]
  for (let i = 0; i < 2000; i += 1) {
    const route = routes[next() % routes.length] as string
    const method = methods[next() % methods.length] as string
    const status = statuses[next() % statuses.length] as number
    const seconds = i < durations.length ? durations[i] as number : (next() % 100_000) / 1e5 * 2
    counts.add(route, method, status, seconds)
    counter.inc({ route, method, status })
    histogram.observe({ route, method }, seconds)
  }
  const expected = await theirs.metrics()
  const got = await ours.metrics()
  t.same(lines(got), lines(expected), 'line for line')
  t.ok(lines(got).length > 300, `every route and method: many series (${lines(got).length} lines)`)

  ours.resetMetrics()
  t.same(lines(await ours.metrics()).filter((line) => !line.startsWith('#')), [], 'reset empties them, as it does prom-client\'s')
})
