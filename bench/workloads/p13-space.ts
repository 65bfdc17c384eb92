// P13: space after churn. A tenant of 1e5 rows is overwritten 10 times over, then 10
// times more, in commits of 1 000 random rows, beside better-sqlite3 doing the same
// work (WAL, synchronous NORMAL). Then both compact (the `compact` operation; SQLite's
// VACUUM). Goals: the page file's allocator tip grows < 10 % over the second phase
// (free slots are reused: docs/format.md, "Space map"); tenantdb's bytes outside the
// WAL are <= 1.5x SQLite's database file after the same work, and <= 1.3x after
// compaction. Space is measured once (it does not vary run to run); the rates are
// reported for what the work cost, not as goals.
import { SqliteKv } from '../anchors/sqlite.js'
import { key, rows, value, type Row } from '../harness/data.js'
import { loadRows, openKv } from '../harness/tenantdb.js'
import { seeded } from '../harness/random.js'
import { quantile } from '../harness/stats.js'
import { nowMs, ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'
import { internalsOf } from '../../src/database/internals.js'

const passes = 10
const batch = 1000

/** `passes` overwrites of `count` rows as commits of `batch` random rows each. */
function* churn(count: number, seed: number): Generator<Row[]> {
  const next = seeded(seed)
  for (let c = 0; c < (count * passes) / batch; c += 1) {
    const rowsOf: Row[] = []
    for (let i = 0; i < batch; i += 1) {
      const n = Math.floor(next() * count)
      rowsOf.push({ k: key(n), v: value(n, `c${c}`) })
    }
    yield rowsOf
  }
}

export const p13: Workload = {
  id: 'P13',
  title: 'space after churn: free slots reused, compaction',
  async run(ctx, rec) {
    const count = ctx.size(100_000, 20_000)
    const db = await openKv(ctx.scratch('p13-tenantdb'))
    const sqlite = new SqliteKv(ctx.scratch('p13-sqlite'), 'NORMAL')
    try {
      await loadRows(db, rows, count, 10_000)
      sqlite.insertMany(rows(0, count))
      const tips: number[] = []
      const rates: Record<'tenantdb' | 'sqlite', number[]> = { tenantdb: [], sqlite: [] }
      // Each commit's time in the second phase, when checkpoints free and reuse slots:
      // what freeing costs the writer (checkpoints run after a commit batch).
      const commitMs: Record<'tenantdb' | 'sqlite', number[]> = { tenantdb: [], sqlite: [] }
      const timed = async (phase: number, work: () => Promise<unknown>) => {
        const started = nowMs()
        await work()
        if (phase === 2) commitMs.tenantdb.push(nowMs() - started)
      }
      for (const [phase, seed] of [[1, 1], [2, 2]] as const) {
        ctx.progress.step(`phase ${phase}: tenantdb, ${passes} overwrites in commits of ${batch}`)
        rates.tenantdb.push(await ratePerS(count * passes, async () => {
          for (const commit of churn(count, seed)) await timed(phase, () => db.tenant('default').query('upsert kv $rows', { rows: commit }))
          await internalsOf(db).engine.checkpoint()
        }))
        ctx.progress.step(`phase ${phase}: sqlite`)
        rates.sqlite.push(await ratePerS(count * passes, () => {
          for (const commit of churn(count, seed)) {
            const started = nowMs()
            sqlite.insertMany(commit, true)
            if (phase === 2) commitMs.sqlite.push(nowMs() - started)
          }
        }))
        tips.push(db.stats().page_count)
      }
      const pages = db.stats().pages
      const wal = db.stats().wal_bytes
      rec.figure('tip_phase1', 'allocator tip after the first 10 overwrites', 'pages', [tips[0] ?? 0], 'lower')
      rec.figure('tip_phase2', 'allocator tip after 10 more', 'pages', [tips[1] ?? 0], 'lower')
      rec.figure('tenantdb_bytes', 'tenantdb page file (outside the WAL)', 'bytes', [pages.file_bytes], 'lower')
      rec.figure('sqlite_bytes', 'better-sqlite3 database file (WAL checkpointed)', 'bytes', [sqlite.fileBytes()], 'lower')
      rec.figure('tenantdb_rate', 'tenantdb churn', 'rows/s', rates.tenantdb)
      rec.figure('sqlite_rate', 'better-sqlite3 churn', 'rows/s', rates.sqlite)
      for (const who of ['tenantdb', 'sqlite'] as const) {
        rec.figure(`${who}_commit_p99`, `${who} commit of 1000 rows, p99 (second phase)`, 'ms', [quantile(commitMs[who], 0.99)], 'lower')
        rec.figure(`${who}_commit_max`, `${who} commit of 1000 rows, slowest (second phase)`, 'ms', [Math.max(...commitMs[who])], 'lower')
      }
      const growth = ((tips[1] ?? 0) - (tips[0] ?? 0)) / (tips[0] ?? 1)
      rec.goal('tip growth over the second phase', growth * 100, '%', '<=', 10)
      rec.ratio('bytes outside the WAL / sqlite file, after churn', 'tenantdb_bytes', 'sqlite_bytes', '<=', 1.5)
      ctx.progress.step('compact')
      await db.ops({ op: 'compact', name: 'default' })
      sqlite.vacuum()
      rec.figure('tenantdb_compacted', 'tenantdb page file after compact', 'bytes', [db.stats().pages.file_bytes], 'lower')
      rec.figure('sqlite_vacuumed', 'better-sqlite3 file after VACUUM', 'bytes', [sqlite.fileBytes()], 'lower')
      rec.ratio('after compact / sqlite after VACUUM', 'tenantdb_compacted', 'sqlite_vacuumed', '<=', 1.3)
      rec.note(`${count} rows of 24-byte keys and 150-byte values; ${passes} + ${passes} overwrites in commits of ${batch} random rows`)
      rec.note(`after the churn: ${pages.live} live, ${pages.free} free, ${pages.pending} pending, ${pages.releasing} releasing slots; WAL ${wal} bytes (outside the goal: checkpoint lag and tail retention, docs/operations.md "Disk space")`)
    } finally {
      sqlite.close()
      await db.close()
    }
  },
}
