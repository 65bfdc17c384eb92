// P10: the change tail's cost and delay. Durable inserts with 64 in flight through the
// embedding API of a served database, with a WebSocket tail consumer (a child
// process) attached and without: goal >= 0.95x. Event latency: from the commit's
// acknowledgement in the server process to the event's arrival at the consumer,
// on a clock both processes share: goal p99 <= 10 ms.
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
    const cpuPerInsert: Record<'without' | 'with_tail', number[]> = { without: [], with_tail: [] }
    const consumerCpu: number[] = []
    const batch = async (acked?: Map<number, number>) => {
      const cpu = process.cpuUsage()
      const rate = await ratePerS(count, () => inFlight(count, width, async () => {
        const n = serial++
        const result = await tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
        acked?.set(result.lsn as number, sharedClockMs())
      }))
      const used = process.cpuUsage(cpu)
      cpuPerInsert[acked === undefined ? 'without' : 'with_tail'].push((used.user + used.system) / count)
      return rate
    }
    const latencies: number[] = []
    const pacedLatencies: number[] = []
    /** One tail consumer for `count` events while `write` runs; latencies into `into`. */
    const attached = async (port: number, expected: number, write: (acked: Map<number, number>) => Promise<number>, into: number[] | null) => {
      const after = internalsOf(db).engine.stats().current_lsn
      const client = startNodeChild('tail-client', [`ws://127.0.0.1:${port}/api/v1/t/default/tail?token=${token}&after=${after}&collection=kv`, String(expected)])
      try {
        await waitForJson(client, 'open')
        const acked = new Map<number, number>()
        const rate = await write(acked)
        const { events, cpu_micros } = await waitForJson<{ events: Array<[number, number]>; cpu_micros: number }>(client, 'events')
        if (into === latencies) consumerCpu.push(cpu_micros / expected)
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
        without: () => batch(),
        with_tail: (round) => attached(port, count, batch, round > 0 ? latencies : null),
      })
      rec.figure('without', 'inserts, 64 in flight, no tail', 'commits/s', samples.without)
      rec.figure('with_tail', 'inserts, 64 in flight, WebSocket tail attached', 'commits/s', samples.with_tail)
      // Latency when the server is not saturated: inserts one at a time.
      ctx.progress.step(`${paced} inserts one by one, tail attached`)
      await attached(port, paced, (acked) => ratePerS(paced, async () => {
        for (let i = 0; i < paced; i += 1) {
          const n = serial++
          const result = await tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
          acked.set(result.lsn as number, sharedClockMs())
        }
      }), pacedLatencies)
      rec.figure('cpu_without', 'server process CPU per insert, no tail', 'µs', cpuPerInsert.without.slice(1), 'lower')
      rec.figure('cpu_with_tail', 'server process CPU per insert, tail attached', 'µs', cpuPerInsert.with_tail.slice(1, 1 + ctx.reps), 'lower')
      rec.figure('cpu_consumer', 'consumer process CPU per event', 'µs', consumerCpu, 'lower')
      rec.ratio('with tail / without', 'with_tail', 'without', '>=', 0.95)
      rec.goal('event latency p99, inserts one by one', quantile(pacedLatencies, 0.99), 'ms', '<=', 10)
      rec.goal('event latency p99, 64 in flight (saturated)', quantile(latencies, 0.99), 'ms', '<=', 10)
      rec.note(`event latency from the insert's acknowledgement to the consumer; one by one (${pacedLatencies.length} events): p50 ${quantile(pacedLatencies, 0.5).toFixed(2)} ms; 64 in flight (${latencies.length} events): p50 ${quantile(latencies, 0.5).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms`)
    } finally {
      await app.close()
      await db.close()
    }
  },
}
