// P18's parts (docs/performance.md, "Noisy neighbour (P18)"): its two loads
// (bench/harness/steady-reads.ts with its child, bench/harness/statement-loop.ts)
// against a small HTTP server in this process, and the tally of which server thread
// answered which tenant (bench/harness/thread-tally.ts). The open-loop reader must count
// a stall in the latency of every request due during it (a reader that waited for
// answers before sending would show only one late request per connection), and report
// failures; the statement loop must count answers and failures by code and go on
// after them. No timing is asserted beyond what a stall of known length must at least
// cost.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { startChild } from '../bench/harness/child.js'
import { sharedClockMs } from '../bench/harness/clock.js'
import { StatementLoop } from '../bench/harness/statement-loop.js'
import { SteadyReads } from '../bench/harness/steady-reads.js'
import { sharedShare, ThreadTally } from '../bench/harness/thread-tally.js'

// The child runs from its TypeScript source through tap's loader.
const ts_loader = process.execArgv.filter((arg) => arg.includes('@tapjs/typescript'))
const reader_script = fileURLToPath(new URL('../bench/children/steady-reader.ts', import.meta.url))

const rate = 200
const stall_ms = 400

interface Fake {
  server: Server
  url: string
  /** Bodies the server was sent. */
  bodies: string[]
  /** How the next answers go. */
  mode: 'row' | 'no_row' | 'fail'
}

async function body(req: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of req) text += chunk
  return text
}

async function fakeServer(t: Test): Promise<Fake> {
  const fake: Fake = { server: createServer(), url: '', bodies: [], mode: 'row' }
  fake.server.on('request', (req, res) => void body(req).then((text) => {
    fake.bodies.push(text)
    if (fake.mode === 'fail' || text.includes('"fail"')) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"too slow","code":"query_timeout","conflict":false}')
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end(fake.mode === 'row' ? '{"rows":[[1]]}' : '{"rows":[]}')
    }
  }))
  fake.server.listen(0, '127.0.0.1')
  await once(fake.server, 'listening')
  const address = fake.server.address()
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/api/v1/t/a/query`
  t.teardown(() => new Promise<void>((resolve) => { fake.server.closeAllConnections(); fake.server.close(() => resolve()) }))
  return fake
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('steady reads: every request due during a stall is late by what is left of it', async (t) => {
  const fake = await fakeServer(t)
  const reads = new SteadyReads(
    { url: fake.url, token: 'tok', rate, connections: 2, ids: 50, statement: 'items | get $id' },
    (args) => startChild(process.execPath, [...ts_loader, reader_script, ...args], {}, { input: true }),
  )
  t.teardown(() => reads.close())
  // Past the reader's start (its schedule begins a little after it does) and first connections.
  await sleep(300)
  await reads.caughtUp()

  let from = sharedClockMs()
  await sleep(500)
  let to = sharedClockMs()
  const calm = await reads.window(from, to)
  const due = ((to - from) / 1000) * rate
  t.ok(Math.abs(calm.latencies.length - due) <= 2, `about ${due} requests due in the window, ${calm.latencies.length} answered`)
  t.equal(calm.failed + calm.unanswered, 0)
  t.ok(calm.answered >= due * 0.8, `${calm.answered} of them answered before the window closed`)
  const sent = fake.bodies.map((text) => JSON.parse(text) as { query: string; params: { id: number } })
  t.ok(sent.every((b) => b.query === 'items | get $id' && b.params.id >= 0 && b.params.id < 50), 'each request reads an id below `ids`')

  from = sharedClockMs()
  await sleep(100)
  const stalled = sharedClockMs()
  while (sharedClockMs() - stalled < stall_ms) { /* the server's event loop held, as by a statement that does not yield */ }
  await sleep(100)
  to = sharedClockMs()
  const stall = await reads.window(from, to)
  const late = stall.latencies.filter((ms) => ms >= 100).length
  // Requests due in the stall's first 300 ms wait at least 100 ms: rate × 0.3 of them.
  t.ok(late >= rate * 0.3 * 0.9, `${late} requests late by 100 ms or more (a closed loop would show at most 2)`)
  t.ok(Math.max(...stall.latencies) >= stall_ms - 20, `the worst waited the whole stall: ${Math.max(...stall.latencies)} ms`)

  fake.mode = 'no_row'
  await reads.caughtUp()
  from = sharedClockMs()
  await sleep(200)
  to = sharedClockMs()
  const wrong = await reads.window(from, to)
  t.equal(wrong.latencies.length, 0, 'an answer without the row is no good answer')
  t.equal(wrong.answered, 0)
  t.ok(wrong.failed >= 30, `${wrong.failed} failed`)
  t.match(wrong.failures[0], /^200 without the row/)

  fake.mode = 'fail'
  await reads.caughtUp()
  from = sharedClockMs()
  await sleep(100)
  const refused = await reads.window(from, sharedClockMs())
  t.match(refused.failures[0], /^400: .*query_timeout/, 'a refusal is reported with its status and body')
})

t.test('statement loop: answers and failures counted, in-flight ones awaited at stop', async (t) => {
  const fake = await fakeServer(t)
  const loop = new StatementLoop(fake.url, 'tok', 4, (n) => JSON.stringify(n % 3 === 0 ? { fail: n } : { ok: n }))
  await sleep(200)
  const outcome = await loop.stop()
  t.ok(outcome.done > 0, `${outcome.done} done`)
  t.same(Object.keys(outcome.errors), ['query_timeout'])
  t.equal(outcome.done + (outcome.errors.query_timeout ?? 0), fake.bodies.length, 'every statement sent was answered before stop returned')
  t.equal(fake.bodies.filter((text) => text.includes('"fail"')).length, outcome.errors.query_timeout)

  const address = fake.server.address()
  await new Promise<void>((resolve) => { fake.server.closeAllConnections(); fake.server.close(() => resolve()) })
  const dead = new StatementLoop(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`, 'tok', 2, () => '{}')
  await sleep(200)
  const gone = await dead.stop()
  t.equal(gone.done, 0)
  t.ok((gone.errors.network ?? 0) >= 2, `a server that is gone: ${gone.errors.network} network failures, and the loop went on`)
})

t.test('thread tally: request lines counted by tenant and thread, only while counting', async (t) => {
  // Lines as `tenantdb serve` logs them: a worker's with `thread`, the opening thread's without.
  const line = (tenant: string, thread?: number) => JSON.stringify({ level: 30, reqId: 'req-1', route: '/api/v1/t/:tenant/query', tenant, ...(thread === undefined ? {} : { thread }), status: 200, msg: 'request' })
  const lines = [line('a', 1), line('b'), line('a'), line('a'), line('a', 1), 'not a request line', JSON.stringify({ level: 30, msg: 'listening' })]
  // On each line `go N` from the parent, prints the lines above, then `done N`.
  const script = `
const lines = ${JSON.stringify(lines)}
require('node:readline').createInterface({ input: process.stdin }).on('line', (go) => {
  for (const l of lines) console.log(l)
  console.log('done ' + go.slice(3))
})
`
  const server = startChild(process.execPath, ['-e', script], {}, { input: true })
  t.teardown(() => server.kill())
  const tally = new ThreadTally(server)
  const round = async (n: number) => {
    server.send(`go ${n}`)
    await server.waitFor((l) => l === `done ${n}`)
  }
  await round(1)
  t.same(tally.stop(), new Map(), 'nothing counted before start()')
  tally.start()
  await round(2)
  const counts = tally.stop()
  t.same(counts, new Map([['a', new Map([[1, 2], [0, 2]])], ['b', new Map([[0, 1]])]]), 'by tenant, then by thread (0: the opening thread)')
  t.equal(sharedShare(counts, 'a', 'b'), 0.5, "half of a's requests were answered by the thread that answered b")
  t.equal(sharedShare(counts, 'b', 'a'), 1)
  t.equal(sharedShare(counts, 'c', 'a'), 0, 'a tenant without requests shares nothing')
  await round(3)
  t.same(tally.stop(), new Map(), 'nothing counted after stop()')
})
