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

const width = 64

export const p10: Workload = {
  id: 'P10',
  title: 'change tail: commits with a WebSocket tail attached, and event latency',
  async run(ctx, rec) {
    const count = ctx.size(10_000, 3_000)
    const db = await openKv(ctx.scratch('p10-tenantdb'))
    const token = `bench-${process.hrtime.bigint()}`
    const app = await buildServer({ db, token, logger: false })
    const tenant = db.tenant('default')
    let serial = 0
    const batch = async (acked?: Map<number, number>) => ratePerS(count, () => inFlight(count, width, async () => {
      const n = serial++
      const result = await tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
      acked?.set(result.lsn as number, sharedClockMs())
    }))
    const latencies: number[] = []
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const address = app.server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      const samples = await ctx.rounds({
        without: () => batch(),
        with_tail: async (round) => {
          const after = db.engine.stats().current_lsn
          const client = startNodeChild('tail-client', [`ws://127.0.0.1:${port}/api/v1/t/default/tail?token=${token}&after=${after}&collection=kv`, String(count)])
          try {
            await waitForJson(client, 'open')
            const acked = new Map<number, number>()
            const rate = await batch(acked)
            const { events } = await waitForJson<{ events: Array<[number, number]> }>(client, 'events')
            if (round > 0) {
              for (const [lsn, arrived] of events) {
                const ack = acked.get(lsn)
                if (ack === undefined) throw new Error(`the tail delivered lsn ${lsn}, which no insert acknowledged`)
                latencies.push(arrived - ack)
              }
            }
            return rate
          } finally {
            await client.kill()
          }
        },
      })
      rec.figure('without', 'inserts, 64 in flight, no tail', 'commits/s', samples.without)
      rec.figure('with_tail', 'inserts, 64 in flight, WebSocket tail attached', 'commits/s', samples.with_tail)
      rec.ratio('with tail / without', 'with_tail', 'without', '>=', 0.95)
      rec.goal('event latency p99 (ack -> consumer)', quantile(latencies, 0.99), 'ms', '<=', 10)
      rec.note(`event latency over ${latencies.length} events: p50 ${quantile(latencies, 0.5).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms (negative: the event arrived before the insert's promise resolved)`)
    } finally {
      await app.close()
      await db.close()
    }
  },
}
