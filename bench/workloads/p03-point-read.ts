// P3: point reads by primary key through the embedding API, warm cache, against
// better-sqlite3's prepared `get` and lmdb's synchronous `get` on the same rows. The
// goal is measured through a prepared statement's synchronous `get` (as better-sqlite3
// is driven); the awaited `tenant.query` is reported beside it.
import { key, spread } from '../harness/data.js'
import { lmdbDataset, sqliteDataset, tenantdbDataset } from '../harness/datasets.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'

export const p03: Workload = {
  id: 'P3',
  title: 'point reads by primary key, embedded API, warm cache',
  async run(ctx, rec) {
    const rowCount = ctx.size(1_000_000, 100_000)
    const reads = ctx.size(200_000, 50_000)
    const db = await tenantdbDataset(ctx, rowCount)
    const sqlite = await sqliteDataset(ctx, rowCount)
    const lmdb = await lmdbDataset(ctx, rowCount)
    // The same keys, spread over the whole tree, made before timing.
    const keys = Array.from({ length: 10_000 }, (_, i) => key(spread(i, rowCount)))
    const at = (i: number) => keys[i % keys.length] as string
    const tenant = db.tenant('default')
    const prepared = await tenant.prepare('kv | get $k')
    const check = (found: unknown) => {
      if (found === undefined || found === null) throw new Error('a point read found no row')
    }
    const samples = await ctx.rounds({
      tenantdb: () => ratePerS(reads, () => {
        for (let i = 0; i < reads; i += 1) check(prepared.get({ k: at(i) }))
      }),
      tenantdb_query: () => ratePerS(reads, async () => {
        for (let i = 0; i < reads; i += 1) check((await tenant.query('kv | get $k', { k: at(i) })).rows[0])
      }),
      sqlite: () => ratePerS(reads, () => {
        for (let i = 0; i < reads; i += 1) check(sqlite.get(at(i)))
      }),
      lmdb: () => ratePerS(reads, () => {
        for (let i = 0; i < reads; i += 1) check(lmdb.get(at(i)))
      }),
    })
    rec.figure('tenantdb', 'tenantdb prepared `kv | get $k`, synchronous get', 'reads/s', samples.tenantdb)
    rec.figure('tenantdb_query', 'tenantdb `kv | get $k` through tenant.query (awaited)', 'reads/s', samples.tenantdb_query)
    rec.figure('sqlite', 'better-sqlite3 prepared get', 'reads/s', samples.sqlite)
    rec.figure('lmdb', 'lmdb get', 'reads/s', samples.lmdb)
    rec.ratio('tenantdb / sqlite get', 'tenantdb', 'sqlite', '>=', 1.5)
    rec.ratio('tenantdb / lmdb get', 'tenantdb', 'lmdb', '>=', 0.7)
    rec.note(`${reads} reads per repetition over ${rowCount} rows`)
  },
}
