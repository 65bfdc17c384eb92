// P1: durable single-row inserts, one writer, each durable before the next. Anchors:
// the floors of one fdatasync per commit (appending to a file, and writing in place
// into a preallocated one, SQLite's situation) and better-sqlite3 WAL FULL/NORMAL.
// tenantdb three ways: a prepared insert's `runSync` (written and synced on the
// caller's thread, as better-sqlite3's `run`), its `run()` awaited, and `tenant.query`
// awaited (the text parsed from the statement cache each time).
import { fdatasyncRate, preallocatedFdatasyncRate } from '../anchors/fdatasync.js'
import { SqliteKv } from '../anchors/sqlite.js'
import { key, value } from '../harness/data.js'
import { openKv } from '../harness/tenantdb.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'

export const p01: Workload = {
  id: 'P1',
  title: 'durable single-row inserts, one writer, one by one',
  async run(ctx, rec) {
    const count = ctx.size(1000, 300)
    const db = await openKv(ctx.scratch('p1-tenantdb'))
    const anchorDir = ctx.scratch('p1-fdatasync')
    const full = new SqliteKv(ctx.scratch('p1-sqlite-full'), 'FULL')
    const normal = new SqliteKv(ctx.scratch('p1-sqlite-normal'), 'NORMAL')
    const tenant = db.tenant('default')
    const insert = await tenant.prepare('insert kv {k: $k, v: $v}')
    // Each contender writes keys of its own: rounds × count keys per contender.
    const rounds = ctx.reps + 1
    const base = { sync: 0, prepared: rounds * count, query: 2 * rounds * count }
    try {
      const samples = await ctx.rounds({
        fdatasync: () => fdatasyncRate(anchorDir, count),
        fdatasync_prealloc: () => preallocatedFdatasyncRate(anchorDir, count),
        tenantdb_sync: (round) => ratePerS(count, () => {
          for (let i = 0; i < count; i += 1) {
            const n = base.sync + round * count + i
            insert.runSync({ k: key(n), v: value(n) })
          }
        }),
        tenantdb_prepared: (round) => ratePerS(count, async () => {
          for (let i = 0; i < count; i += 1) {
            const n = base.prepared + round * count + i
            await insert.run({ k: key(n), v: value(n) })
          }
        }),
        tenantdb: (round) => ratePerS(count, async () => {
          for (let i = 0; i < count; i += 1) {
            const n = base.query + round * count + i
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
      rec.figure('tenantdb_sync', 'tenantdb prepared insert runSync() (durable, on the caller\'s thread)', 'commits/s', samples.tenantdb_sync)
      rec.figure('tenantdb_prepared', 'tenantdb prepared insert run() awaited (durable)', 'commits/s', samples.tenantdb_prepared)
      rec.figure('tenantdb', 'tenantdb query insert awaited (durable)', 'commits/s', samples.tenantdb)
      rec.figure('fdatasync_prealloc', 'raw pwrite into a preallocated file + fdatasync', 'syncs/s', samples.fdatasync_prealloc)
      rec.figure('fdatasync', 'raw append + fdatasync', 'syncs/s', samples.fdatasync)
      rec.figure('sqlite_full', 'better-sqlite3 WAL synchronous=FULL (durable)', 'commits/s', samples.sqlite_full)
      rec.figure('sqlite_normal', 'better-sqlite3 WAL synchronous=NORMAL (not durable at commit)', 'commits/s', samples.sqlite_normal)
      rec.ratio('runSync / preallocated fdatasync', 'tenantdb_sync', 'fdatasync_prealloc', '>=', 0.8)
      rec.ratio('runSync / sqlite FULL', 'tenantdb_sync', 'sqlite_full', '>=', 1.0)
      rec.ratio('prepared run() / sqlite FULL', 'tenantdb_prepared', 'sqlite_full', '>=', 0.8)
      rec.ratio('query / sqlite FULL', 'tenantdb', 'sqlite_full', '>=', 0.8)
      rec.ratio('query / raw append fdatasync', 'tenantdb', 'fdatasync', '>=', 0.8)
      rec.note(`${count} inserts per repetition and contender, each durable before the next`)
    } finally {
      full.close()
      normal.close()
      await db.close()
    }
  },
}
