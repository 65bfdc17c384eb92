// P2: durable inserts with 64 in flight, so commits share fsyncs (group commit).
// Compared with P1's one-by-one rate, measured again here in the same rounds, and
// with lmdb's awaited puts, 64 in flight (lmdb-js batches them per flush).
import { LmdbKv } from '../anchors/lmdb.js'
import { key, value } from '../harness/data.js'
import { inFlight } from '../harness/in-flight.js'
import { openKv } from '../harness/tenantdb.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'

const width = 64

export const p02: Workload = {
  id: 'P2',
  title: 'durable inserts, 64 in flight (group commit)',
  async run(ctx, rec) {
    const count = ctx.size(20_000, 5_000)
    const serialCount = ctx.size(1000, 300)
    const db = await openKv(ctx.scratch('p2-tenantdb'))
    const lmdb = new LmdbKv(ctx.scratch('p2-lmdb'))
    const tenant = db.tenant('default')
    const insert = (n: number) => tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
    try {
      const samples = await ctx.rounds({
        tenantdb: (round) => ratePerS(count, () => inFlight(count, width, (i) => insert(round * 1e7 + i))),
        tenantdb_serial: (round) => ratePerS(serialCount, async () => {
          for (let i = 0; i < serialCount; i += 1) await insert(round * 1e7 + 5e6 + i)
        }),
        lmdb: (round) => ratePerS(count, () => inFlight(count, width, (i) => lmdb.put({ k: key(round * 1e7 + i), v: value(i) }))),
      })
      rec.figure('tenantdb', 'tenantdb inserts, 64 in flight', 'commits/s', samples.tenantdb)
      rec.figure('tenantdb_serial', 'tenantdb inserts, one by one (P1)', 'commits/s', samples.tenantdb_serial)
      rec.figure('lmdb', 'lmdb awaited puts, 64 in flight', 'puts/s', samples.lmdb)
      rec.ratio('64 in flight / one by one', 'tenantdb', 'tenantdb_serial', '>=', 10)
      rec.ratio('tenantdb / lmdb', 'tenantdb', 'lmdb', '>=', 1)
      rec.note(`${count} inserts per repetition`)
    } finally {
      await lmdb.close()
      await db.close()
    }
  },
}
