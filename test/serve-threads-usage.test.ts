// Each tenant's usage on a server on every core (docs/architecture.md, "Every core"):
// `tenantdb serve --workers 2`. A worker thread's statements reach the opening thread
// with the figures it reports, so the usage route, the metrics and the health detail
// (all served there) count every statement of every thread, each once.
import t from 'tap'
import { thread_trends_report_ms } from '../src/limits.js'
import { parseExposition, sampleValue } from './helpers/prometheus-text.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { hang_guard_ms } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'
import { freshRequest, type FreshAnswer } from './helpers/fresh-request.js'

const token = 'threads-usage-token-0123456789abcdef'

/** One request on a connection of its own, so the kernel may hand it to either thread. */
function fresh(origin: string, path: string, json?: unknown): Promise<FreshAnswer> {
  return freshRequest(origin, path, token, { json })
}

t.test('a worker\'s statements are counted on the opening thread, once', async (t) => {
  const server = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', '--schema', 'examples/schema.eel', '--token', token, '--workers', '2', '--metrics-tenants', '5'])
  const origin = (await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/))[1] as string
  t.equal((await fresh(origin, '/api/v1/t/default/ops', { op: 'create', name: 'acme' })).status, 200)
  t.equal((await fresh(origin, '/api/v1/t/default/ops', { op: 'create', name: 'globex' })).status, 200)
  // Reads of acme (each answered by the thread it reached), a write of globex (run by the opener).
  const reads = 120
  for (let i = 0; i < reads; i += 1) {
    const read = await fresh(origin, '/api/v1/t/acme/query', { query: 'users | take 1' })
    if (read.status !== 200) t.fail(`read ${i}: ${read.status} ${JSON.stringify(read.body)}`)
  }
  t.equal((await fresh(origin, '/api/v1/t/globex/query', { query: 'insert users [{id: 1, email: "a@x", name: "A"}, {id: 2, email: "b@x", name: "B"}]' })).status, 200)
  const byWorker = server.stdout().split('\n').filter((l) => l.includes('"msg":"request"') && l.includes('"tenant":"acme"') && l.includes('"route":"/api/v1/t/:tenant/query"') && /"thread":\d+/.test(l)).length
  t.ok(byWorker > 0 && byWorker < reads, `both threads answered reads (${byWorker} of ${reads} by the worker)`)

  // The worker reports every thread_trends_report_ms: wait until its reads arrived.
  const deadline = Date.now() + hang_guard_ms
  let usage = (await fresh(origin, '/api/v1/t/acme/usage')).body
  while (usage.statements < reads && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    usage = (await fresh(origin, '/api/v1/t/acme/usage')).body
  }
  t.equal(usage.statements, reads, 'every read counted, on whichever thread it ran')
  // A few reports later, still once each (nothing counted twice, nothing posted again).
  await new Promise((resolve) => setTimeout(resolve, thread_trends_report_ms * 3))
  t.equal((await fresh(origin, '/api/v1/t/acme/usage')).body.statements, reads, 'and counted once')
  t.match((await fresh(origin, '/api/v1/t/globex/usage')).body, { statements: 1, rows_written: 2, commits: 1 })

  const metrics = parseExposition(String((await fresh(origin, '/api/v1/metrics')).body))
  t.equal(sampleValue(metrics, 'tenantdb_tenant_statements_total', { tenant: 'acme' }), reads, 'the metrics show them once, whichever thread scraped')
  t.equal(sampleValue(metrics, 'tenantdb_tenant_rows_written_total', { tenant: 'globex' }), 2)
  const detail = (await fresh(origin, '/api/v1/health/detail')).body
  t.equal(detail.isolation.busiest.find((u: { tenant: string }) => u.tenant === 'acme')?.statements, reads, 'the health detail as well')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})
