// P18: a noisy neighbour. One `tenantdb serve` (every core, its default) with two
// tenants: A reads `items | get $id` at a steady open-loop rate from a process of its
// own (bench/harness/steady-reads.ts: latency from each request's due time, so a stall
// is counted), while B first idles (the baseline) and then, in turn, runs each heavy
// scenario in a loop for the whole window: full scans, a sort, a many-to-many hash
// lookup (a few statements in flight each), a flood of inserts (64 in flight), and a
// `matches` as costly as the step limit allows over long texts. For each: A's p99 and
// rate against the idle baseline's, A's p50 and p99, and what B got done and how many
// of its statements failed (a timeout, a limit: counted, not fatal). The kernel gives
// each connection to one of the server's threads, so each repetition also reports the
// share of A's answers that came from a thread B's statements ran on, and the goals
// pool every window's requests, so one unlucky window counts. Each round runs the
// phases in order, the next round in reverse, after a warm-up round (one of B's
// statements at a time, no window); a server that exits stops the workload, naming
// the scenario.
import { key, value } from '../harness/data.js'
import { sharedClockMs } from '../harness/clock.js'
import { loadNeighbours, costly_pattern, writeNeighbourSchema } from '../harness/neighbour-data.js'
import { StatementLoop, type LoopOutcome } from '../harness/statement-loop.js'
import { SteadyReads, type WindowReport } from '../harness/steady-reads.js'
import { quantile } from '../harness/stats.js'
import { sharedShare, ThreadTally, type Tally } from '../harness/thread-tally.js'
import { startTenantdbServer, type ServerChild } from '../harness/tenantdb-server.js'
import type { Workload } from '../harness/workload.js'

/** A's requests per second: well under what the server answers (P9: thousands a second). */
const a_rate = 400
const a_connections = 4
/** B's statements in flight in the heavy scenarios, and inserts in flight in the flood. */
const b_heavy_width = 4
const b_flood_width = 64
/** B runs this long before A's window opens, so the window sees B under way. */
const lead_in_ms = 250
/** Longer than the server gathers log lines before writing them (docs/performance.md, "The request path (P9)"). */
const log_flush_ms = 100

interface Scenario {
  key: string
  label: string
  width: number
  body: (n: number) => string
}

function statement(query: string, params: Record<string, unknown> = {}): string {
  return JSON.stringify({ query, params })
}

/** B's scenarios; `written` numbers the flood's keys across rounds so every insert is new. */
function scenarios(): Scenario[] {
  let written = 0
  return [
    { key: 'scan', label: 'B full scans', width: b_heavy_width, body: () => statement('items | where n == -1 | count') },
    { key: 'sort', label: 'B sorts', width: b_heavy_width, body: () => statement('items | sort label desc | take 10') },
    { key: 'lookup', label: 'B many-to-many lookups', width: b_heavy_width, body: () => statement('items | lookup many t: tags on grp == grp | where len(t) > 2 | count') },
    { key: 'writes', label: 'B insert flood', width: b_flood_width, body: () => { const n = written++; return statement('insert writes {k: $k, v: $v}', { k: key(n), v: value(n) }) } },
    { key: 'pattern', label: 'B costly matches', width: b_heavy_width, body: () => statement('docs | where matches(body, $p) | count', { p: costly_pattern }) },
  ]
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function serverExited(server: ServerChild): string | null {
  const { exitCode, signalCode } = server.child.process
  if (exitCode === null && signalCode === null) return null
  return `exit code ${exitCode}, signal ${signalCode}; its last lines: ${server.child.lines.slice(-5).join(' | ')}`
}

interface PhaseResult { a: WindowReport; windowMs: number; b: LoopOutcome | null; tally: Tally }

/** Per phase, its samples per repetition and every window's latencies together. */
class PhaseFigures {
  readonly perRep = new Map<string, number[]>()
  readonly latencies: number[] = []
  answered = 0
  windowS = 0
  readonly errors: Record<string, number> = {}

  keep(name: string, x: number): void {
    this.perRep.set(name, [...this.perRep.get(name) ?? [], x])
  }

  get(name: string): number[] {
    return this.perRep.get(name) ?? []
  }
}

export const p18: Workload = {
  id: 'P18',
  title: 'noisy neighbour: steady point reads beside a heavy tenant',
  async run(ctx, rec) {
    const sizes = { aItems: ctx.size(100_000, 10_000), bItems: ctx.size(1_000_000, 100_000), bDocs: ctx.size(16, 4) }
    const windowMs = ctx.size(6000, 1000)
    const dir = ctx.scratch('p18-tenantdb')
    const schema = writeNeighbourSchema(dir)
    ctx.progress.step(`loading ${sizes.bItems} items into tenant b, ${sizes.aItems} into a`)
    await loadNeighbours(dir, schema, sizes)
    const server = await startTenantdbServer(dir, {}, schema)
    const threads = new ThreadTally(server.child)
    const reads = new SteadyReads({ url: `${server.base}/api/v1/t/a/query`, token: server.token, rate: a_rate, connections: a_connections, ids: sizes.aItems, statement: 'items | get $id' })
    const bUrl = `${server.base}/api/v1/t/b/query`
    const phases: Array<Scenario | null> = [null, ...scenarios()]
    const figures = new Map(phases.map((scenario) => [scenario?.key ?? 'idle', new PhaseFigures()]))
    const aFailures: string[] = []

    /** One phase: B's scenario (or B idle) and A's window of `ms`; a warm-up phase runs one of B's statements at a time and no window. */
    const phase = async (scenario: Scenario | null, ms: number, width = scenario?.width ?? 0): Promise<PhaseResult> => {
      threads.start()
      const loop = scenario === null ? null : new StatementLoop(bUrl, server.token, width, scenario.body)
      // B stops at the window's end, and also when the phase fails, so no client is left posting.
      let stopping: Promise<LoopOutcome | null> | null = null
      const stopB = () => (stopping ??= loop?.stop() ?? Promise.resolve(null))
      try {
        await sleep(lead_in_ms)
        const from = sharedClockMs()
        await sleep(ms)
        const to = sharedClockMs()
        const [a, b] = await Promise.all([reads.window(from, to), stopB()])
        // The server writes its log lines in batches: wait for the last ones of B's statements.
        await sleep(log_flush_ms)
        const tally = threads.stop()
        const exited = serverExited(server)
        if (exited !== null) throw new Error(`P18: the server exited during ${scenario?.label ?? 'B idle'}: ${exited}`)
        // A's backlog from a stall is answered before the next phase, so it is not counted twice.
        await reads.caughtUp()
        return { a, windowMs: to - from, b, tally }
      } finally {
        await stopB()
      }
    }

    try {
      for (let round = 0; round <= ctx.reps; round += 1) {
        const order = round % 2 === 0 ? phases : [...phases].reverse()
        for (const scenario of order) {
          const name = scenario?.key ?? 'idle'
          ctx.progress.step(`${round === 0 ? 'warm-up' : `rep ${round}/${ctx.reps}`}: ${scenario?.label ?? 'B idle'}`)
          const { a, windowMs: measuredMs, b, tally } = await (round === 0 ? phase(scenario, 0, 1) : phase(scenario, windowMs))
          if (round === 0) continue
          if (a.failed + a.unanswered > 0) aFailures.push(`${name}: ${a.failed} failed, ${a.unanswered} unanswered (${a.failures.slice(0, 2).join('; ')})`)
          if (a.latencies.length === 0) throw new Error(`P18: tenant A had no good answer in the window under ${name}`)
          const f = figures.get(name) as PhaseFigures
          f.keep('rate', a.answered / (measuredMs / 1000))
          f.keep('p50', quantile(a.latencies, 0.5))
          f.keep('p99', quantile(a.latencies, 0.99))
          f.keep('max', Math.max(...a.latencies))
          for (const ms of a.latencies) f.latencies.push(ms)
          f.answered += a.answered
          f.windowS += measuredMs / 1000
          if (b === null) continue
          f.keep('shared', sharedShare(tally, 'a', 'b'))
          f.keep('done', b.done)
          f.keep('errors', Object.values(b.errors).reduce((sum, n) => sum + n, 0))
          for (const [code, n] of Object.entries(b.errors)) f.errors[code] = (f.errors[code] ?? 0) + n
        }
      }
    } finally {
      await reads.close()
      await server.child.kill()
    }

    for (const scenario of phases) {
      const name = scenario?.key ?? 'idle'
      const under = scenario === null ? 'B idle' : `under ${scenario.label}`
      const f = figures.get(name) as PhaseFigures
      rec.figure(`a_${name}_rate`, `A's rate, ${under}`, 'req/s', f.get('rate'))
      rec.figure(`a_${name}_rate_all`, `A's rate, ${under}: all windows`, 'req/s', [f.answered / f.windowS])
      rec.figure(`a_${name}_p50`, `A's latency p50, ${under}`, 'ms', f.get('p50'), 'lower')
      rec.figure(`a_${name}_p99`, `A's latency p99, ${under}`, 'ms', f.get('p99'), 'lower')
      rec.figure(`a_${name}_p99_all`, `A's latency p99, ${under}: all windows`, 'ms', [quantile(f.latencies, 0.99)], 'lower')
      rec.figure(`a_${name}_max`, `A's latency max, ${under}`, 'ms', f.get('max'), 'lower')
      if (scenario === null) continue
      rec.figure(`a_${name}_shared`, `A's answers from B's threads, ${under}`, 'share', f.get('shared'), 'lower')
      rec.figure(`b_${name}_done`, `${scenario.label}: statements done`, 'stmts', f.get('done'))
      rec.figure(`b_${name}_errors`, `${scenario.label}: statements failed`, 'stmts', f.get('errors'), 'lower')
    }
    for (const scenario of phases) {
      if (scenario === null) continue
      rec.ratio(`A p99 under ${scenario.label} / B idle`, `a_${scenario.key}_p99_all`, 'a_idle_p99_all', '<=', 3)
      rec.ratio(`A rate under ${scenario.label} / B idle`, `a_${scenario.key}_rate_all`, 'a_idle_rate_all', '>=', 0.8)
    }
    rec.note(`A: ${a_rate} point reads/s open-loop over ${a_connections} keep-alive connections, ${sizes.aItems} items; latency from each request's due time; a window of ${windowMs / 1000} s per phase (B starts ${lead_in_ms} ms before it), each round's phases in turn, the next round's in reverse; the goals compare every window's requests together (p99 and rate), so one bad window counts`)
    rec.note(`B: ${sizes.bItems} items, ${b_heavy_width} statements in flight (${b_flood_width} inserts in the flood); ${sizes.bDocs} docs of the longest text \`matches(body, "${costly_pattern}")\` may take; statements done and failed count the whole phase, B's in-flight ones awaited after the window; threads from the server's request log (B's inserts are logged by the thread that took them and committed by the opening thread)`)
    for (const [name, f] of figures) if (Object.keys(f.errors).length > 0) rec.note(`B's failures under ${name}: ${Object.entries(f.errors).map(([code, n]) => `${n} ${code}`).join(', ')}`)
    for (const failure of aFailures) rec.note(`A's failures under ${failure}`)
  },
}
