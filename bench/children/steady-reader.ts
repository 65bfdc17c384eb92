// P18's tenant A: point reads at a steady, open-loop rate. Request i is due at start +
// i / RATE on the clock the parent shares, whether or not earlier ones were answered,
// and its latency counts from that due time: a server that stalls makes the requests
// behind the stall late, and the lateness is measured, not hidden by a client that
// waits (closed-loop load sends less while the server stalls). Requests go over
// CONNECTIONS keep-alive connections (a request finding them all busy waits for one,
// and that wait counts too). Each posts STATEMENT with `$id` a key in [0, IDS); an
// answer is good when it is a 200 holding one row.
//
// Prints {"started": MS} when its schedule starts. The parent sends lines
// {"report": N, "from": MS, "to": MS} on stdin; once every request due before `to` is
// settled (or has waited unanswered_after_ms), this prints {"report": N, "latencies":
// [ms, …], "answered": K, "failed": F, "unanswered": U, "failures": [first few]}:
// latencies of the good answers to the requests due in [from, to), K those of them
// answered before `to` (the rate A got), F and U the requests due in the window that
// failed or had no answer, with why the first few failed. Reads stop when stdin closes.
//
//   node steady-reader.js URL TOKEN RATE CONNECTIONS IDS STATEMENT
import { Agent, request } from 'node:http'
import { createInterface } from 'node:readline'
import { sharedClockMs } from '../harness/clock.js'
import { spread } from '../harness/data.js'

const [url, token, rateArg, connectionsArg, idsArg, statement] = process.argv.slice(2)
if (statement === undefined) throw new Error('usage: steady-reader URL TOKEN RATE CONNECTIONS IDS STATEMENT')
const target = new URL(url as string)
const interval_ms = 1000 / Number(rateArg)
const ids = Number(idsArg)
const agent = new Agent({ keepAlive: true, maxSockets: Number(connectionsArg) })
/** A request still waiting this long after its window closed is reported unanswered (a hung server). */
const unanswered_after_ms = 30_000
const failures_kept = 5

const pending = 0
const good = 1
const failed = 2
const due: number[] = []
const answeredAt: number[] = []
const state: number[] = []
/** Why each failed request failed, by its number. */
const why = new Map<number, string>()
/** Every request before this one is settled (answers come back nearly in order). */
let settledBelow = 0
let stopped = false

function settle(i: number, outcome: number, failure?: string): void {
  answeredAt[i] = sharedClockMs()
  state[i] = outcome
  if (failure !== undefined) why.set(i, failure)
}

function send(i: number): void {
  due[i] = start_ms + i * interval_ms
  state[i] = pending
  const body = JSON.stringify({ query: statement, params: { id: spread(i, ids) } })
  const req = request({
    agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
  }, (res) => {
    const chunks: Buffer[] = []
    res.on('data', (chunk: Buffer) => chunks.push(chunk))
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString()
      if (res.statusCode !== 200) return settle(i, failed, `${res.statusCode}: ${text.slice(0, 200)}`)
      const rows = (JSON.parse(text) as { rows?: unknown[] }).rows
      if (rows?.length !== 1) return settle(i, failed, `200 without the row: ${text.slice(0, 200)}`)
      settle(i, good)
    })
    res.on('error', (err) => settle(i, failed, err.message))
  })
  req.on('error', (err) => { if (state[i] === pending) settle(i, failed, err.message) })
  req.end(body)
}

const start_ms = sharedClockMs()
let next = 0

/** Sends every request now due, then sleeps until the next is. */
function tick(): void {
  if (stopped) return
  const now = sharedClockMs()
  while (start_ms + next * interval_ms <= now) send(next++)
  setTimeout(tick, Math.max(0, start_ms + next * interval_ms - sharedClockMs()))
}
tick()
process.stdout.write(`${JSON.stringify({ started: start_ms })}\n`)

async function report(n: number, from: number, to: number): Promise<void> {
  const waitedSince = sharedClockMs()
  const unsettled = () => {
    while (settledBelow < due.length && state[settledBelow] !== pending) settledBelow += 1
    for (let i = settledBelow; i < due.length && (due[i] as number) < to; i += 1) if (state[i] === pending) return true
    return false
  }
  while ((start_ms + next * interval_ms < to || unsettled()) && sharedClockMs() - waitedSince < unanswered_after_ms) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const latencies: number[] = []
  let answered = 0
  let failedCount = 0
  let unanswered = 0
  const failures: string[] = []
  for (let i = firstDueAt(from); i < due.length && (due[i] as number) < to; i += 1) {
    if ((due[i] as number) < from) continue
    const at = answeredAt[i] as number
    if (state[i] === good) {
      latencies.push(Math.round((at - (due[i] as number)) * 100) / 100)
      if (at < to) answered += 1
    } else if (state[i] === failed) {
      failedCount += 1
      if (failures.length < failures_kept) failures.push(why.get(i) ?? '')
    } else {
      unanswered += 1
    }
  }
  process.stdout.write(`${JSON.stringify({ report: n, latencies, answered, failed: failedCount, unanswered, failures })}\n`)
}

/** About the first request due at or after `ms` (the schedule is regular; one early, for rounding). */
function firstDueAt(ms: number): number {
  return Math.max(0, Math.min(due.length, Math.ceil((ms - start_ms) / interval_ms) - 1))
}

let reports = Promise.resolve()
createInterface({ input: process.stdin }).on('line', (line) => {
  const { report: n, from, to } = JSON.parse(line) as { report: number; from: number; to: number }
  reports = reports.then(() => report(n, from, to))
}).on('close', () => {
  stopped = true
  void reports.then(() => {
    agent.destroy()
    process.exit(0)
  })
})
