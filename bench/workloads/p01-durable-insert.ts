// P1: durable single-row inserts, one writer, each awaited before the next. Anchors:
// raw fdatasync (the floor without group commit) and better-sqlite3 WAL FULL/NORMAL.
import { fdatasyncRate } from '../anchors/fdatasync.js'
import { SqliteKv } from '../anchors/sqlite.js'
import { key, value } from '../harness/data.js'
import { openKv } from '../harness/tenantdb.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'

export const p01: Workload = {
  id: 'P1',
  title: 'durable single-row inserts, one writer, awaited one by one',
  async run(ctx, rec) {
    const count = ctx.size(1000, 300)
    const db = await openKv(ctx.scratch('p1-tenantdb'))
    const anchorDir = ctx.scratch('p1-fdatasync')
    const full = new SqliteKv(ctx.scratch('p1-sqlite-full'), 'FULL')
    const normal = new SqliteKv(ctx.scratch('p1-sqlite-normal'), 'NORMAL')
    const tenant = db.tenant('default')
    try {
      const samples = await ctx.rounds({
        fdatasync: () => fdatasyncRate(anchorDir, count),
        tenantdb: (round) => ratePerS(count, async () => {
          for (let i = 0; i < count; i += 1) {
            const n = round * count + i
            await tenant.query('insert kv {k: $k, v: $v}', { k: key(n), v: value(n) })
          }
        }),
        sqlite_full: (round) => ratePerS(count, () => {
          for (let i = 0; i < count; i += 1) full.insert({ k: key(round * count + i), v: value(round * count + i) })
        }),
        sqlite_normal: (round) => ratePerS(count, () => {
          for (let i = 0; i < count; i += 1) normal.insert({ k: key(round * count + i), v: value(round * count + i) })
        }),
      })
      rec.figure('tenantdb', 'tenantdb inserts (durable)', 'commits/s', samples.tenantdb)
      rec.figure('fdatasync', 'raw append + fdatasync', 'syncs/s', samples.fdatasync)
      rec.figure('sqlite_full', 'better-sqlite3 WAL synchronous=FULL (durable)', 'commits/s', samples.sqlite_full)
      rec.figure('sqlite_normal', 'better-sqlite3 WAL synchronous=NORMAL (not durable at commit)', 'commits/s', samples.sqlite_normal)
      rec.ratio('tenantdb / raw fdatasync', 'tenantdb', 'fdatasync', '>=', 0.8)
      rec.ratio('tenantdb / sqlite FULL', 'tenantdb', 'sqlite_full', '>=', 1.2)
      rec.note(`${count} inserts per repetition, each through the query language and awaited`)
    } finally {
      full.close()
      normal.close()
      await db.close()
    }
  },
}
