// A noisy neighbour (docs/operations.md, "Isolation"; the benchmark's P18 holds the
// tight bounds, docs/performance.md): a real `tenantdb serve` on one thread, the worst
// case, where every request of both tenants meets on one event loop. Tenant A reads by
// id at a steady rate, open-loop (latency from each read's due time, so a stall is
// counted), first with B idle, then while B runs each heavy scenario in a loop: full
// scans, sorts, a many-to-many hash lookup, a flood of inserts 64 in flight, and
// `matches` as costly as the step bound allows. A's p99 must stay within generous
// bounds of its idle p99 and nearly every read must be answered in the window: the
// statement that held the event loop for seconds, or a tenant's 64 writes run back to
// back, fail it.
import { Agent, request } from 'node:http'
import { Worker } from 'node:worker_threads'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { RE2JS } from 're2js'
import { eel_pattern_steps_max } from '../src/limits.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'noisy-neighbour-token-0123456789ab'
const schema = `collection items { id: int primary, grp: int, n: int, label: string }
collection tags { id: int primary, grp: int, name: string }
collection docs { id: int primary, body: string }
collection writes { v: string }
`
const b_items = 30_000
const a_items = 1000
const a_rate_per_s = 100
const window_ms = 2000
const costly = '[a-z ]{300}Q'

function post(port: number, agent: Agent, path: string, body: unknown): Promise<{ status: number; body: string }> {
  const data = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => { text += c }).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(data)
  })
}

interface Statement {
  query: string
  params?: Record<string, unknown>
}

/** B's client: `width` loops of its statements over keep-alive connections until told to stop; posts how many it ran. */
const b_loop_source = `
const { parentPort, workerData } = require('node:worker_threads')
const http = require('node:http')
const { port, token, width, statements } = workerData
const agent = new http.Agent({ keepAlive: true, maxSockets: width })
let running = true
let done = 0
parentPort.once('message', () => { running = false })
function post(body) {
  return new Promise((resolve) => {
    const data = JSON.stringify(body)
    const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/t/b/query', method: 'POST', agent,
      headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => { res.resume(); res.on('end', resolve) })
    req.on('error', resolve)
    req.end(data)
  })
}
Promise.all(Array.from({ length: width }, async (_, w) => {
  for (let i = w; running; i += width) { await post(statements[i % statements.length]); done += 1 }
})).then(() => parentPort.postMessage(done))
`

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Infinity
}

t.test('a tenant\'s steady reads stay served while another runs heavy work', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'schema.eel'), schema)
  const server = spawnCli(t, ['serve', '--dir', join(dir, 'db'), '--schema', join(dir, 'schema.eel'), '--port', '0', '--workers', '1', '--log-level', 'silent'], { SERVICE_TOKEN: token })
  const [, portText] = await server.waitFor(/url: http:\/\/127\.0\.0\.1:(\d+)\/api\/v1\n/)
  const port = Number(portText)
  // A and B on connections of their own, as two tenants' clients would be.
  const agents = { a: new Agent({ keepAlive: true, maxSockets: 16 }), b: new Agent({ keepAlive: true, maxSockets: 4 }) }
  t.teardown(() => { agents.a.destroy(); agents.b.destroy() })
  const q = (tenant: 'a' | 'b', query: string, params: Record<string, unknown> = {}) => post(port, agents[tenant], `/api/v1/t/${tenant}/query`, { query, params })
  for (const name of ['a', 'b'] as const) t.equal((await post(port, agents.b, `/api/v1/t/${name}/ops`, { op: 'create', name })).status, 200)
  for (let from = 0; from < b_items; from += 2000) {
    const rows = Array.from({ length: 2000 }, (_, j) => { const id = from + j; return { id, grp: (id * 7919) % 1000, n: id, label: `item-${(id * 7919) % b_items}` } })
    t.equal((await q('b', 'insert items $rows', { rows })).status, 200)
  }
  await q('a', 'insert items $rows', { rows: Array.from({ length: a_items }, (_, id) => ({ id, grp: 0, n: id, label: 'a' })) })
  await q('b', 'insert tags $rows', { rows: Array.from({ length: 1000 }, (_, id) => ({ id, grp: id % 500, name: `tag-${id}` })) })
  const steps = Math.floor(eel_pattern_steps_max / RE2JS.compile(costly, 0).programSize()) - 1
  const body = `Q${'lorem ipsum dolor sit amet '.repeat(Math.ceil(steps / 27))}`.slice(0, steps)
  await q('b', 'insert docs $rows', { rows: Array.from({ length: 4 }, (_, id) => ({ id, body })) })

  /** A's reads over one window: latencies from each read's due time, and how many were answered 200. */
  const window = async (): Promise<{ latencies: number[]; answered: number; due: number }> => {
    const started = performance.now()
    const due = Math.floor((window_ms / 1000) * a_rate_per_s)
    const latencies: number[] = []
    let answered = 0
    const reads: Array<Promise<void>> = []
    for (let i = 0; i < due; i += 1) {
      const at = started + (i * 1000) / a_rate_per_s
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())))
      reads.push(q('a', 'items | get $id', { id: i % a_items }).then((res) => {
        latencies.push(performance.now() - at)
        if (res.status === 200) answered += 1
      }))
    }
    await Promise.all(reads)
    return { latencies, answered, due }
  }

  /** B's statements, `width` in flight, until stopped: from a thread of their own, so A's client loop is not B's. */
  const loop = (width: number, statements: Statement[]) => {
    const worker = new Worker(b_loop_source, { eval: true, workerData: { port, token, width, statements } })
    const finished = new Promise<number>((resolve, reject) => {
      worker.once('message', (done: number) => resolve(done))
      worker.once('error', reject)
    })
    return async () => {
      worker.postMessage('stop')
      const done = await finished
      await worker.terminate()
      return done
    }
  }

  await window() // warm-up
  const idle = await window()
  const idle_p99 = quantile(idle.latencies, 0.99)
  t.equal(idle.answered, idle.due, `B idle: every read answered (p99 ${idle_p99.toFixed(1)} ms)`)
  const scenarios: Array<[string, number, Statement[]]> = [
    ['full scans', 4, [{ query: 'items | where label == "none" | count' }]],
    ['sorts', 4, [{ query: 'items | sort label desc | take 10' }]],
    ['many-to-many lookups', 4, [{ query: 'items | lookup many t: tags on grp == grp | where len(t) > 2 | count' }]],
    ['an insert flood', 64, [{ query: 'insert writes {v: "w"}' }]],
    ['costly matches', 4, [{ query: 'docs | where matches(body, $p) | count', params: { p: costly } }]],
  ]
  for (const [label, width, statements] of scenarios) {
    const stop = loop(width, statements)
    await new Promise((resolve) => setTimeout(resolve, 200))
    // Generous: twenty times the idle p99 or 300 ms, on a two-core machine other tests
    // share (the benchmark holds the tight bound; a saturated machine's idle p99 was 23
    // ms, and its windows 345–414 ms). Before fair turns, a read waited 0.4 s behind the
    // insert flood and 8.8 s behind the costly matches. A window past the bound is
    // measured once more under the same load (a neighbouring test file's burst passes; a
    // stall of this server's does not), and the better of the two counts.
    const bound = Math.max(20 * idle_p99, 300)
    let got = await window()
    let p99 = quantile(got.latencies, 0.99)
    if (p99 > bound) {
      const again = await window()
      const p99_again = quantile(again.latencies, 0.99)
      t.comment(`${label}: A's p99 ${p99.toFixed(1)} ms past the bound, measured again: ${p99_again.toFixed(1)} ms`)
      if (p99_again < p99) [got, p99] = [again, p99_again]
    }
    const done = await stop()
    t.ok(done > 0, `${label}: B got work done (${done} statements)`)
    t.ok(p99 <= bound, `${label}: A's p99 ${p99.toFixed(1)} ms within ${bound.toFixed(1)} ms (idle ${idle_p99.toFixed(1)} ms)`)
    t.ok(got.answered >= 0.95 * got.due, `${label}: A answered ${got.answered} of ${got.due} reads`)
  }
})
