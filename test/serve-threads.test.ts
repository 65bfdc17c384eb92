// A server on every core (docs/architecture.md, "Every core"): `tenantdb serve
// --workers 2`, the opening thread and a worker thread accepting from one socket over
// one engine. What the server guarantees on one thread holds across them: a write is
// read by the next request whichever thread answers it, a revoked token fails on the
// very next request on every thread, every tail sees every commit once in LSN order,
// the throttle counts wrong tokens of every thread, a token's use shows in every
// listing, the metrics count each request once, and SIGTERM ends in a clean exit with
// every acknowledged write durable.
import { request as httpRequest } from 'node:http'
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { Database } from '../src/database/index.js'
import { auth_failures_max } from '../src/limits.js'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { parseExposition, sampleValue } from './helpers/prometheus-text.js'
import { tempDir } from './helpers/temp-dir.js'
import { freshRequest, type FreshAnswer } from './helpers/fresh-request.js'

const token = 'threads-token-0123456789abcdef0123'
const schema = 'examples/schema.eel'

type Answer = FreshAnswer

/** One request on a connection of its own, so the kernel may hand it to either thread. */
function fresh(origin: string, path: string, options: { method?: string; json?: unknown; bearer?: string } = {}): Promise<Answer> {
  return freshRequest(origin, path, options.bearer ?? token, options)
}

async function serve(t: Test, dir = tempDir(t)): Promise<{ server: CliProcess; origin: string; dir: string }> {
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', schema, '--token', token, '--workers', '2'])
  const [, origin] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/)
  return { server, origin: origin as string, dir }
}

/** Runs `work(i)` for i < count, `width` at a time. */
async function spread(count: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await work(next++)
  }))
}

/** The request lines of the log: the opening thread's have no `thread`, a worker's name it. */
function requestLines(server: CliProcess): Array<Record<string, unknown>> {
  return server.stdout().split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l) as Record<string, unknown>)
}

t.test('both threads answer; each request is logged and counted once; a write is read by the next request', async (t) => {
  const { server, origin } = await serve(t)
  const query = '/api/v1/t/default/query'
  const reads = 300
  await spread(reads, 12, async (i) => {
    const write = await fresh(origin, query, { json: { query: 'insert users {id: $id, email: $e, name: "n"}', params: { id: i, e: `u${i}@x` } } })
    if (write.status !== 200) t.fail(`insert ${i}: ${write.status} ${JSON.stringify(write.body)}`)
    const read = await fresh(origin, query, { json: { query: 'users | get $id | select email', params: { id: i } } })
    if (read.status !== 200 || read.body.rows?.[0]?.[0] !== `u${i}@x`) t.fail(`read ${i} after its write: ${read.status} ${JSON.stringify(read.body)}`)
  })
  const metrics = parseExposition(String((await fresh(origin, '/api/v1/metrics')).body))
  t.equal(sampleValue(metrics, 'tenantdb_http_requests_total', { route: '/api/v1/t/:tenant/query', method: 'POST', status: '200' }), reads * 2, 'the metrics count each request once, whichever thread answered it')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  const lines = requestLines(server).filter((l) => l.route === '/api/v1/t/:tenant/query')
  t.equal(lines.length, reads * 2, 'one log line per request (a write forwarded as its statement: the line of the thread it reached)')
  const byWorker = lines.filter((l) => typeof l.thread === 'number').length
  t.ok(byWorker > 0 && byWorker < lines.length, `both threads answered (${byWorker} of ${lines.length} by the worker)`)
  const ids = new Set(lines.map((l) => l.reqId))
  t.equal(ids.size, lines.length, 'request ids are unique across threads')
})

t.test('a revoked token fails on the very next request, on every thread', async (t) => {
  const { server, origin } = await serve(t)
  const issued = await fresh(origin, '/api/v1/t/default/tokens', { json: { scope: 'read' } })
  t.equal(issued.status, 201)
  const tenantToken = issued.body.token as string
  // Used on many connections: both threads have it verified (and cached).
  const before = await Promise.all(Array.from({ length: 40 }, () => fresh(origin, '/api/v1/t/default/collections', { bearer: tenantToken })))
  t.same(before.map((a) => a.status), before.map(() => 200), 'the token opens its tenant on every connection')
  const revoked = await fresh(origin, `/api/v1/t/default/tokens/${issued.body.id as string}`, { method: 'DELETE' })
  t.equal(revoked.status, 200)
  // Fewer than the throttle's limit: a revoked token is a wrong token, and counts.
  const after = await Promise.all(Array.from({ length: auth_failures_max - 2 }, () => fresh(origin, '/api/v1/t/default/collections', { bearer: tenantToken })))
  t.same(after.map((a) => a.status), after.map(() => 401), 'refused on every connection right after the revocation')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('a token\'s use shows in the listing whichever thread saw it', async (t) => {
  const { server, origin } = await serve(t)
  // Each token used once, on a connection of its own: with two threads, the uses land on
  // both, and the listings (also on fresh connections) must show every one.
  const count = 12
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const issued = await fresh(origin, '/api/v1/t/default/tokens', { json: { scope: 'read', name: `use-${i}` } })
    t.equal(issued.status, 201)
    ids.push(issued.body.id as string)
    t.equal((await fresh(origin, '/api/v1/t/default/collections', { bearer: issued.body.token as string })).status, 200)
  }
  for (let i = 0; i < 4; i++) {
    const listed = await fresh(origin, '/api/v1/t/default/tokens')
    const entries = listed.body.tokens as Array<{ id: string; last_used_at: string | null }>
    t.same(entries.filter((e) => e.last_used_at === null).map((e) => e.id), [], `listing ${i + 1}: every token's use shows`)
    t.equal(entries.length, count)
  }
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('wrong tokens are throttled whichever thread they reach', async (t) => {
  const { server, origin } = await serve(t)
  const statuses: number[] = []
  for (let i = 0; i < auth_failures_max + 5; i++) statuses.push((await fresh(origin, '/api/v1/health', { bearer: `wrong-${i}` })).status)
  t.same(statuses.slice(0, auth_failures_max), statuses.slice(0, auth_failures_max).map(() => 401), 'each failure counted up to the limit')
  t.same(statuses.slice(auth_failures_max), [429, 429, 429, 429, 429], 'then refused from that address, on every connection')
  t.equal((await fresh(origin, '/api/v1/health')).status, 200, 'the right token is never locked out')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('every tail sees every commit once, in LSN order, whichever thread it is on', async (t) => {
  const { server, origin } = await serve(t)
  const writes = 200
  const tails = Array.from({ length: 6 }, () => {
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/api/v1/t/default/tail?token=${token}&after=0&collection=users`)
    const lsns: number[] = []
    ws.on('message', (data) => { lsns.push((JSON.parse(String(data)) as { lsn: number }).lsn) })
    return { ws, lsns, open: new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject) }) }
  })
  await Promise.all(tails.map((tail) => tail.open))
  const acknowledged: number[] = []
  await spread(writes, 8, async (i) => {
    const write = await fresh(origin, '/api/v1/t/default/query', { json: { query: 'insert users {id: $id, email: $e, name: "n"}', params: { id: i, e: `t${i}@x` } } })
    if (write.status === 200) acknowledged.push(write.body.lsn as number)
    else t.fail(`insert ${i}: ${write.status}`)
  })
  acknowledged.sort((a, b) => a - b)
  const deadline = Date.now() + 20_000
  while (tails.some((tail) => tail.lsns.length < writes) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  for (const [i, tail] of tails.entries()) t.same(tail.lsns, acknowledged, `tail ${i}: every acknowledged commit once, in LSN order`)
  const poll = await fresh(origin, `/api/v1/t/default/tail?after=${acknowledged[writes - 11] ?? 0}&collection=users`)
  t.same(poll.body.events.map((e: { lsn: number }) => e.lsn), acknowledged.slice(-10), 'a poll reads the same events')
  for (const tail of tails) tail.ws.close()
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('a statement that commits answers the same whichever thread it reaches: its result and each failure', async (t) => {
  const { server, origin } = await serve(t)
  const query = '/api/v1/t/default/query'
  t.equal((await fresh(origin, query, { json: { query: 'insert users {id: 1, email: "a@x", name: "n"}' } })).status, 200)
  const snap = await fresh(origin, '/api/v1/t/default/ops', { json: { op: 'snapshot', name: 'default', target: 'before' } })
  t.equal(snap.status, 200, JSON.stringify(snap.body))
  const readToken = (await fresh(origin, '/api/v1/t/default/tokens', { json: { scope: 'read' } })).body.token as string
  const cases = {
    duplicate: { json: { query: 'insert users {id: 1, email: "a@x", name: "n"}' } },
    unknown_field: { json: { query: 'insert users {id: 2, email: "b@x", nickname: "n"}' } },
    read_token: { json: { query: 'insert users {id: 3, email: "c@x", name: "n"}' }, bearer: readToken },
    not_allowed_here: { json: { query: 'tenant create other' } },
  }
  const tries = 24
  for (const [name, options] of Object.entries(cases)) {
    const answers = await Promise.all(Array.from({ length: tries }, () => fresh(origin, query, options)))
    t.same(answers.slice(1), answers.slice(1).map(() => answers[0]), `${name}: ${tries} answers alike (${answers[0]?.status} ${answers[0]?.body.code})`)
    t.ok((answers[0]?.status ?? 0) >= 400, `${name}: refused`)
  }
  // A write pinned to a snapshot, and one to a tenant that does not exist.
  const pinned = await Promise.all(Array.from({ length: tries }, () => new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${origin}${query}`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'service-snapshot': 'before', 'content-type': 'text/plain' } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => { text += c }).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end('insert users {id: 4, email: "d@x", name: "n"}')
  })))
  t.same(new Set(pinned.map((a) => `${a.status} ${a.body.code}`)), new Set(['400 readonly_snapshot']), 'pinned to a snapshot: readonly_snapshot from every thread')
  const unknown = await Promise.all(Array.from({ length: tries }, () => fresh(origin, '/api/v1/t/nowhere/query', { json: { query: 'insert users {id: 5, email: "e@x", name: "n"}' } })))
  t.same(new Set(unknown.map((a) => `${a.status} ${a.body.code}`)), new Set(['404 unknown_tenant']), 'an unknown tenant: 404 from every thread')
  const inserts = await Promise.all(Array.from({ length: tries }, (_, i) => fresh(origin, query, { json: { query: 'insert users {id: $id, email: $e, name: "n"}', params: { id: 100 + i, e: `w${i}@x` } } })))
  t.same(inserts.map((a) => a.status), inserts.map(() => 200), 'writes from either thread commit')
  t.same(new Set(inserts.map((a) => a.body.lsn)).size, tries, 'each with its own LSN')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  const workerLines = requestLines(server).filter((l) => l.route === '/api/v1/t/:tenant/query' && typeof l.thread === 'number')
  t.ok(workerLines.some((l) => l.status === 400) && workerLines.some((l) => l.status === 200), 'the worker thread answered writes and refusals itself')
})

t.test('SIGTERM under a write load: exit 0, every acknowledged write durable', async (t) => {
  const { server, origin, dir } = await serve(t)
  const acknowledged: number[] = []
  let stop = false
  const load = spread(4000, 16, async (i) => {
    if (stop) return
    const write = await fresh(origin, '/api/v1/t/default/query', { json: { query: 'insert users {id: $id, email: $e, name: "n"}', params: { id: i, e: `s${i}@x` } } }).catch(() => null)
    if (write?.status === 200) acknowledged.push(i)
    else if (write !== null && write.status !== 503) t.fail(`insert ${i}: ${write.status} ${JSON.stringify(write.body)}`)
  })
  while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 5))
  server.child.kill('SIGTERM')
  stop = true
  t.equal(await server.exited, 0, 'a clean exit while both threads were answering')
  await load
  const db = await Database.open(dir, { schema: [schema] })
  t.teardown(() => db.close())
  const ids = new Set((await db.tenant('default').query('users | select id')).rows.map((row) => row[0]))
  t.same(acknowledged.filter((id) => !ids.has(id)), [], `all ${acknowledged.length} acknowledged writes are durable`)
})

t.test('--workers takes 1 to 64 threads', async (t) => {
  for (const bad of ['0', '65', 'two']) {
    const server = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', '--workers', bad])
    t.equal(await server.exited, 2, `--workers ${bad}: a usage error`)
    t.match(server.stderr(), /--workers must be a whole number of threads from 1 to 64/)
  }
  const one = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', '--token', token], { TENANTDB_WORKERS: '1' })
  const [, origin] = await one.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/)
  await Promise.all(Array.from({ length: 20 }, () => fresh(origin as string, '/api/v1/health')))
  one.child.kill('SIGTERM')
  t.equal(await one.exited, 0)
  t.same(requestLines(one).filter((l) => l.thread !== undefined), [], 'TENANTDB_WORKERS=1: one thread answers everything')
})
