// P4: a bulk insert of many rows in one atomic block, into a fresh database each
// repetition, against better-sqlite3 inserting the same rows in one transaction
// (synchronous=FULL, so both end durable) and lmdb in one transaction.
import { LmdbKv } from '../anchors/lmdb.js'
import { SqliteKv } from '../anchors/sqlite.js'
import { rows } from '../harness/data.js'
import { openKv } from '../harness/tenantdb.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'

export const p04: Workload = {
  id: 'P4',
  title: 'bulk insert in one atomic block',
  async run(ctx, rec) {
    const count = ctx.size(1_000_000, 100_000)
    const data = rows(0, count)
    const samples = await ctx.rounds({
      tenantdb: async () => {
        const db = await openKv(ctx.scratch('p4-tenantdb'))
        try {
          return await ratePerS(count, () => db.tenant('default').query('insert kv $rows', { rows: data }))
        } finally {
          await db.close()
        }
      },
      sqlite: async () => {
        const db = new SqliteKv(ctx.scratch('p4-sqlite'), 'FULL')
        try {
          return await ratePerS(count, () => db.insertMany(data))
        } finally {
          db.close()
        }
      },
      lmdb: async () => {
        const db = new LmdbKv(ctx.scratch('p4-lmdb'))
        try {
          return await ratePerS(count, () => db.putMany(data))
        } finally {
          await db.close()
        }
      },
    })
    rec.figure('tenantdb', 'tenantdb `insert kv $rows`, one block', 'rows/s', samples.tenantdb)
    rec.figure('sqlite', 'better-sqlite3, one transaction (FULL)', 'rows/s', samples.sqlite)
    rec.figure('lmdb', 'lmdb, one transaction', 'rows/s', samples.lmdb)
    rec.ratio('tenantdb / sqlite', 'tenantdb', 'sqlite', '>=', 1)
    rec.note(`${count} rows per repetition, into a fresh database each time`)
  },
}
