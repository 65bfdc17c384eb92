// P10: the change tail's cost and delay. Durable inserts with 64 in flight through the
// embedding API of a served database, with one WebSocket tail attached, with ten, and
// without: goals >= 0.9x (one) and >= 0.8x (ten). The ten are ten sockets of one child
// process (tail-client.ts), each of which must receive every event, in order. The
// server process's CPU time per insert is reported beside each rate: a tail's own cost,
// apart from the consumer process competing for the cores. Event latency: from the
// commit's acknowledgement in the server process to the event's arrival at the
// consumer, on a clock both processes share: goal p99 <= 10 ms.
import { buildServer } from '../../src/http/index.js'
import { startNodeChild, waitForJson } from '../harness/child.js'
import { sharedClockMs } from '../harness/clock.js'
import { key, value } from '../harness/data.js'
import { inFlight } from '../harness/in-flight.js'
import { quantile } from '../harness/stats.js'
import { openKv } from '../harness/tenantdb.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'
import { internalsOf } from '../../src/database/internals.js'

const width = 64
/** The tails of the many-consumer variant. */
const many = 10

interface TailReport {
  events: Array<[number, number]>
  counts: number[]
  lsn_sums: number[]
  cpu_micros: number
}

export const p10: Workload = {
  id: 'P10',
  title: 'change tail: commits with a WebSocket tail attached, and event latency',
  async run(ctx, rec) {
    const count = ctx.size(10_000, 3_000)
    const paced = ctx.size(2_000, 500)
    const db = await openKv(ctx.scratch('p10-tenantdb'))
    const token = `bench-${process.hrtime.bigint()}`
    const app = await buildServer({ db, token, logger: false })
    const tenant = db.tenant('default')
    let serial = 0
    // CPU time of this (the server's) process per insert, with and without the tail:
    // the tail's own cost, apart from the consumer process competing for the cores.
    type Variant = 'without' | 'with_tail' | 'with_tails'
    const cpuPerInsert: Record<Variant, number[]> = { without: [], with_tail: [], with_tails: [] }
    const consumerCpu: Record<Exclude<Variant, 'without'>, number[]> = { with_tail: [], with_tails: [] }
    const batch = async (variant: Variant, acked?: Map<number, number>) => {
      const cpu = process.cpuUsage()
      const rate = await ratePerS(count, () => inFlight(count, width, async () => {
        const n = serial++
        const result = await tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
        acked?.set(result.lsn as number, sharedClockMs())
      }))
      const used = process.cpuUsage(cpu)
      cpuPerInsert[variant].push((used.user + used.system) / count)
      return rate
    }
    const latencies: number[] = []
    const manyLatencies: number[] = []
    const pacedLatencies: number[] = []
    /**
     * `sockets` tails (one consumer process) for `expected` events each while `write`
     * runs; the first socket's latencies into `into`; every socket must have every event.
     */
    const attached = async (port: number, expected: number, sockets: number, write: (acked: Map<number, number>) => Promise<number>, into: number[] | null, cpuInto: number[] | null) => {
      const after = internalsOf(db).engine.stats().current_lsn
      const client = startNodeChild('tail-client', [`ws://127.0.0.1:${port}/api/v1/t/default/tail?token=${token}&after=${after}&collection=kv`, String(expected), String(sockets)])
      try {
        await waitForJson(client, 'open')
        const acked = new Map<number, number>()
        const rate = await write(acked)
        const { events, counts, lsn_sums, cpu_micros } = await waitForJson<TailReport>(client, 'events')
        cpuInto?.push(cpu_micros / (expected * sockets))
        if (counts.length !== sockets || counts.some((n) => n !== expected)) throw new Error(`tails received ${counts.join(', ')} events, not ${expected} each`)
        if (lsn_sums.some((sum) => sum !== lsn_sums[0])) throw new Error(`tails received different events (LSN sums ${lsn_sums.join(', ')})`)
        for (const [lsn, arrived] of events) {
          const ack = acked.get(lsn)
          if (ack === undefined) throw new Error(`the tail delivered lsn ${lsn}, which no insert acknowledged`)
          into?.push(arrived - ack)
        }
        return rate
      } finally {
        await client.kill()
      }
    }
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const address = app.server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      const samples = await ctx.rounds({
        without: () => batch('without'),
        with_tail: (round) => attached(port, count, 1, (acked) => batch('with_tail', acked), round > 0 ? latencies : null, round > 0 ? consumerCpu.with_tail : null),
        with_tails: (round) => attached(port, count, many, (acked) => batch('with_tails', acked), round > 0 ? manyLatencies : null, round > 0 ? consumerCpu.with_tails : null),
      })
      rec.figure('without', 'inserts, 64 in flight, no tail', 'commits/s', samples.without)
      rec.figure('with_tail', 'inserts, 64 in flight, WebSocket tail attached', 'commits/s', samples.with_tail)
      rec.figure('with_tails', `inserts, 64 in flight, ${many} WebSocket tails attached`, 'commits/s', samples.with_tails)
      // Latency when the server is not saturated: inserts one at a time.
      ctx.progress.step(`${paced} inserts one by one, tail attached`)
      await attached(port, paced, 1, (acked) => ratePerS(paced, async () => {
        for (let i = 0; i < paced; i += 1) {
          const n = serial++
          const result = await tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
          acked.set(result.lsn as number, sharedClockMs())
        }
      }), pacedLatencies, null)
      // Each variant's first sample is its warm-up round's.
      const cpuWithout = rec.figure('cpu_without', 'server process CPU per insert, no tail', 'µs', cpuPerInsert.without.slice(1), 'lower').value
      const cpuTail = rec.figure('cpu_with_tail', 'server process CPU per insert, tail attached', 'µs', cpuPerInsert.with_tail.slice(1), 'lower').value
      const cpuTails = rec.figure('cpu_with_tails', `server process CPU per insert, ${many} tails attached`, 'µs', cpuPerInsert.with_tails.slice(1), 'lower').value
      rec.figure('cpu_consumer', 'consumer process CPU per event, one tail', 'µs', consumerCpu.with_tail, 'lower')
      rec.figure('cpu_consumer_many', `consumer process CPU per event and socket, ${many} tails`, 'µs', consumerCpu.with_tails, 'lower')
      rec.ratio('with tail / without', 'with_tail', 'without', '>=', 0.9)
      rec.ratio(`with ${many} tails / without`, 'with_tails', 'without', '>=', 0.8)
      rec.goal('event latency p99, inserts one by one', quantile(pacedLatencies, 0.99), 'ms', '<=', 10)
      rec.goal('event latency p99, 64 in flight (saturated)', quantile(latencies, 0.99), 'ms', '<=', 10)
      rec.note(`event latency from the insert's acknowledgement to the consumer; one by one (${pacedLatencies.length} events): p50 ${quantile(pacedLatencies, 0.5).toFixed(2)} ms; 64 in flight (${latencies.length} events): p50 ${quantile(latencies, 0.5).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms; ${many} tails, 64 in flight: p50 ${quantile(manyLatencies, 0.5).toFixed(2)} ms, p99 ${quantile(manyLatencies, 0.99).toFixed(2)} ms`)
      rec.note(`server CPU per tailed commit beyond an untailed one (medians): one tail +${(cpuTail - cpuWithout).toFixed(1)} µs, ${many} tails +${(cpuTails - cpuWithout).toFixed(1)} µs`)
    } finally {
      await app.close()
      await db.close()
    }
  },
}
