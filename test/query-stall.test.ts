// Statements that held the event loop for seconds, stalling every tenant: an aggregate
// over many groups, a sort of many rows, `matches` with a large pattern program over
// long texts, `like` with hundreds of `%`. Each now yields at bounded intervals
// (src/query/pace/pace.ts, docs/architecture.md "Invariants"): a timer that should fire every
// 5 ms is never late by more than stall_ms_max while the statement runs, the answer is
// the model's, and a statement given 50 ms stops near its deadline.
import { PerformanceObserver } from 'node:perf_hooks'
import t from 'tap'
import { eel_pattern_steps_max } from '../src/limits.js'
import { harness, type Harness } from './helpers/query-runner.js'

const rows_n = 60_000
/** The longest the event loop may be held: ten times statement_yield_ms, for a busy 2-core machine. */
const stall_ms_max = 100

const schema = 'collection m { id: int primary, seq: int, s: string }'

/** One row's text: 120 characters of a's and b's, different per row. */
const text = (i: number) => (i.toString(2).padStart(17, '0').replace(/0/g, 'a').replace(/1/g, 'b') + 'a').repeat(7).slice(0, 120)

async function seeded(t: Parameters<typeof harness>[0]): Promise<Harness> {
  const h = await harness(t, schema)
  for (let from = 0; from < rows_n; from += 5000) {
    const rows = Array.from({ length: 5000 }, (_, k) => ({ id: from + k, seq: from + k, s: text(from + k) }))
    await h.q('insert m $rows', { rows })
  }
  return h
}

/**
 * Runs `work` while a 5 ms timer runs; the longest gap between two of its ticks, past
 * its 5 ms. A gap counts only the CPU time the process used in it: a process the
 * kernel left waiting behind other test files (tap runs several at once) did not hold
 * its own loop, while a statement that does not yield burns CPU through the whole gap.
 * Nor does a gap count the garbage collector's pauses in it (the `gc` performance
 * entries): a major collection of a large heap on a loaded machine took 110 ms, and
 * it is the runtime's pause, not a statement that failed to yield.
 */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stall_ms: number; took_ms: number }> {
  const gaps: Array<{ from: number; to: number; cpu_ms: number }> = []
  const pauses: Array<{ from: number; to: number }> = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration })
  })
  observer.observe({ entryTypes: ['gc'] })
  let last = performance.now()
  let lastCpu = process.cpuUsage()
  const tick = () => {
    const now = performance.now()
    const cpu = process.cpuUsage(lastCpu)
    gaps.push({ from: last, to: now, cpu_ms: (cpu.user + cpu.system) / 1000 })
    last = now
    lastCpu = process.cpuUsage()
  }
  const timer = setInterval(tick, 5)
  const started = performance.now()
  try {
    const result = await work()
    const took_ms = performance.now() - started
    tick()
    // The observer hears of the last pauses a little later.
    await new Promise((resolve) => setTimeout(resolve, 50))
    let stall = 0
    for (const gap of gaps) {
      const paused = pauses.reduce((sum, p) => sum + Math.max(0, Math.min(gap.to, p.to) - Math.max(gap.from, p.from)), 0)
      stall = Math.max(stall, Math.min(gap.to - gap.from, gap.cpu_ms) - paused - 5)
    }
    return { result, stall_ms: stall, took_ms }
  } finally {
    clearInterval(timer)
    observer.disconnect()
  }
}

// A pattern whose program is large (about 600 instructions) and cannot be made
// deterministic: each match simulates it over the whole text.
const heavyPattern = `(${Array.from({ length: 40 }, (_, i) => `a{1,3}b?|b${'a'.repeat(i % 5)}`).join('|')})*c`
const manyPercents = `${'%a'.repeat(200)}%`

const statements: Array<{ name: string; query: string; model: (ids: number[]) => unknown }> = [
  { name: `aggregate over ${rows_n} groups`, query: 'm | aggregate n: count() by seq | where n == 1 | count', model: (ids) => [[ids.length]] },
  { name: `sort of ${rows_n} rows by text`, query: 'm | sort s desc, id | take 3 | select id', model: (ids) => ids.map((i) => ({ i, s: text(i) })).sort((a, b) => (a.s < b.s ? 1 : a.s > b.s ? -1 : a.i - b.i)).slice(0, 3).map((r) => [r.i]) },
  { name: 'matches with a large program', query: `m | where matches(s, "${heavyPattern}") | count`, model: () => [[0]] },
  { name: 'like with 200 %', query: `m | where like(s, "${manyPercents}") | count`, model: (ids) => [[ids.filter((i) => (text(i).match(/a/g) ?? []).length >= 200).length]] },
  { name: 'like with 60 % and a b', query: `m | where like(s, "${'%a'.repeat(60)}%b") | count`, model: (ids) => [[ids.filter((i) => text(i).endsWith('b') && (text(i).slice(0, -1).match(/a/g) ?? []).length >= 60).length]] },
]

t.test('no statement holds the event loop, and each answers as its model does', async (t) => {
  const h = await seeded(t)
  const ids = Array.from({ length: rows_n }, (_, i) => i)
  for (const { name, query, model } of statements) {
    const { result, stall_ms, took_ms } = await longestStall(() => h.runner.run('default', query, {}, { time_ms_max: 120_000 }))
    t.same(result.rows, model(ids), `${name}: the model's answer`)
    t.ok(stall_ms < stall_ms_max, `${name}: ran ${took_ms.toFixed(0)} ms, the loop was held ${stall_ms.toFixed(1)} ms at most (< ${stall_ms_max})`)
  }
})

t.test('like with 400 % over 2000 texts of 2000 characters holds the loop no longer than over short ones', async (t) => {
  const h = await harness(t, schema)
  const long = (i: number) => 'ab'.repeat(1000) + (i % 2 === 0 ? 'c' : '')
  await h.q('insert m $rows', { rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, seq: i, s: long(i) })) })
  const { result, stall_ms, took_ms } = await longestStall(() => h.q(`m | where like(s, "${'%a'.repeat(400)}%c") | count`))
  t.same(result.rows, [[1000]])
  t.ok(stall_ms < stall_ms_max, `ran ${took_ms.toFixed(0)} ms, the loop was held ${stall_ms.toFixed(1)} ms at most (< ${stall_ms_max})`)
})

t.test('each stops near a 50 ms deadline, however much work is left', async (t) => {
  const h = await seeded(t)
  for (const { name, query } of statements) {
    const { result: err, took_ms } = await longestStall(() => h.runner.run('default', query, {}, { time_ms_max: 50 }).then(() => undefined, (e: unknown) => e))
    if (err === undefined) {
      // A statement this machine finished within 50 ms has nothing to stop.
      t.pass(`${name}: done within 50 ms`)
      continue
    }
    t.match(err, { code: 'query_timeout' }, `${name}: query_timeout`)
    t.ok(took_ms < 50 + 4 * stall_ms_max, `${name}: stopped after ${took_ms.toFixed(0)} ms`)
  }
})

t.test('one match whose bound passes eel_pattern_steps_max is refused before it starts', async (t) => {
  const h = await harness(t, schema)
  const long = 'a'.repeat(20_000)
  await h.q('insert m $rows', { rows: [{ id: 1, seq: 1, s: long }] })
  const err = await h.q(`m | where matches(s, "${heavyPattern}") | count`).then(() => undefined, (e: unknown) => e)
  t.match(err, { code: 'type_error', message: new RegExp(`more than the limit of ${eel_pattern_steps_max}`) })
  t.same((await h.q('m | where matches(s, "^a+$") | count')).rows, [[1]], 'a small program over the same text is answered')
})
