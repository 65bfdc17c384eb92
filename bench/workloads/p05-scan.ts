// P5: a range scan (`where k >= $k | take 1000`) and a full scan, each delivering the
// rows to JavaScript, against better-sqlite3's `iterate` over the same rows. tenantdb
// is driven as better-sqlite3 is: a prepared statement's `iterate`, which streams a
// scan of any size, with rows as objects and as arrays (`{raw: true}`). Beside it, the same through `tenant.query`, which answers at most
// query_rows_max rows, so that full scan pages by key (keyset pagination).
import { key, spread } from '../harness/data.js'
import { sqliteDataset, tenantdbDataset } from '../harness/datasets.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'

const range_rows = 1000
const page_rows = 10_000

export const p05: Workload = {
  id: 'P5',
  title: 'range scan (take 1000) and full scan',
  async run(ctx, rec) {
    const rowCount = ctx.size(1_000_000, 100_000)
    const ranges = ctx.size(200, 100)
    const db = await tenantdbDataset(ctx, rowCount)
    const sqlite = await sqliteDataset(ctx, rowCount)
    const tenant = db.tenant('default')
    const range = await tenant.prepare('kv | where k >= $k | take 1000')
    const full = await tenant.prepare('kv')
    const counted = (rows: Iterable<unknown>) => {
      let n = 0
      for (const row of rows) if (row !== undefined) n += 1
      return n
    }
    const starts = Array.from({ length: ranges }, (_, i) => key(spread(i, rowCount - range_rows)))
    const expect = (n: number, wanted: number) => {
      if (n !== wanted) throw new Error(`a scan returned ${n} rows, expected ${wanted}`)
    }
    const tenantdbFull = async () => {
      let seen = 0
      let page = (await tenant.query('kv | take $n', { n: page_rows })).rows
      while (page.length > 0) {
        seen += page.length
        const last = (page[page.length - 1] as unknown[])[0]
        page = (await tenant.query('kv | where k > $after | take $n', { after: last as string, n: page_rows })).rows
      }
      expect(seen, rowCount)
    }
    const samples = await ctx.rounds({
      tenantdb_range: () => ratePerS(ranges * range_rows, () => {
        for (const k of starts) expect(counted(range.iterate({ k })), range_rows)
      }),
      tenantdb_query_range: () => ratePerS(ranges * range_rows, async () => {
        for (const k of starts) expect((await tenant.query('kv | where k >= $k | take 1000', { k })).rows.length, range_rows)
      }),
      sqlite_range: () => ratePerS(ranges * range_rows, () => {
        for (const k of starts) expect(sqlite.rangeFrom(k, range_rows), range_rows)
      }),
      tenantdb_range_raw: () => ratePerS(ranges * range_rows, () => {
        for (const k of starts) expect(counted(range.iterate({ k }, { raw: true })), range_rows)
      }),
      tenantdb_full: () => ratePerS(rowCount, () => expect(counted(full.iterate()), rowCount)),
      tenantdb_full_raw: () => ratePerS(rowCount, () => expect(counted(full.iterate({}, { raw: true })), rowCount)),
      tenantdb_query_full: () => ratePerS(rowCount, tenantdbFull),
      sqlite_full: () => ratePerS(rowCount, () => expect(sqlite.scanAll(), rowCount)),
    })
    rec.figure('tenantdb_range', 'tenantdb prepared `kv | where k >= $k | take 1000`, iterate', 'rows/s', samples.tenantdb_range)
    rec.figure('tenantdb_query_range', 'tenantdb the same through tenant.query', 'rows/s', samples.tenantdb_query_range)
    rec.figure('sqlite_range', 'better-sqlite3 iterate `k >= ? LIMIT 1000`', 'rows/s', samples.sqlite_range)
    rec.figure('tenantdb_range_raw', 'tenantdb the same, iterate({raw: true}) (arrays)', 'rows/s', samples.tenantdb_range_raw)
    rec.figure('tenantdb_full', 'tenantdb prepared `kv`, iterate', 'rows/s', samples.tenantdb_full)
    rec.figure('tenantdb_full_raw', 'tenantdb prepared `kv`, iterate({raw: true}) (arrays)', 'rows/s', samples.tenantdb_full_raw)
    rec.figure('tenantdb_query_full', `tenantdb full scan through tenant.query (pages of ${page_rows})`, 'rows/s', samples.tenantdb_query_full)
    rec.figure('sqlite_full', 'better-sqlite3 iterate, every row', 'rows/s', samples.sqlite_full)
    rec.ratio('range: tenantdb / sqlite', 'tenantdb_range', 'sqlite_range', '>=', 1)
    rec.ratio('full: tenantdb / sqlite', 'tenantdb_full', 'sqlite_full', '>=', 1)
    rec.ratio('full raw: tenantdb / sqlite', 'tenantdb_full_raw', 'sqlite_full', '>=', 1)
    rec.note(`${ranges} ranges of ${range_rows} rows; full scans of ${rowCount} rows`)
  },
}
