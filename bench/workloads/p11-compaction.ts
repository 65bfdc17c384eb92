// P11: compaction after churn. Each repetition loads a fresh tenant, overwrites every
// row 10 times, and compacts it (the `compact` tenant operation): rows/s reported, and
// the live pages after (reachable pages, counted by verify) against the minimum: the
// same rows loaded once into a fresh database and compacted there. Goal <= 1.3x.
import type { Database } from '../../src/database/index.js'
import { rows } from '../harness/data.js'
import { loadRows, openKv } from '../harness/tenantdb.js'
import { ratePerS } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'
import { internalsOf } from '../../src/database/internals.js'

const churn_rounds = 10

async function livePages(db: Database): Promise<number> {
  const report = await internalsOf(db).engine.verify()
  if (report.problems.length > 0) throw new Error(`verify found problems: ${report.problems.join('; ')}`)
  return report.pages
}

export const p11: Workload = {
  id: 'P11',
  title: 'compaction after 10x overwrite churn',
  async run(ctx, rec) {
    const count = ctx.size(100_000, 20_000)
    const chunk = 10_000
    const fresh = await openKv(ctx.scratch('p11-minimum'))
    let minimum: number
    try {
      await loadRows(fresh, rows, count, chunk)
      await fresh.ops({ op: 'compact', name: 'default' })
      minimum = await livePages(fresh)
    } finally {
      await fresh.close()
    }
    const before: number[] = []
    const after: number[] = []
    const fileGrowth: number[] = []
    const samples = await ctx.rounds({
      compact: async (round) => {
        const db = await openKv(ctx.scratch('p11-churned'))
        try {
          await loadRows(db, rows, count, chunk)
          for (let pass = 1; pass <= churn_rounds; pass += 1) {
            ctx.progress.step(`${round === 0 ? 'warm-up' : `rep ${round}/${ctx.reps}`}: churn pass ${pass}/${churn_rounds}`)
            for (let from = 0; from < count; from += chunk) {
              await db.tenant('default').query('upsert kv $rows', { rows: rows(from, Math.min(chunk, count - from), `c${pass}`) })
            }
          }
          await internalsOf(db).engine.checkpoint()
          const pagesBefore = await livePages(db)
          const fileBefore = internalsOf(db).engine.stats().page_count
          const rate = await ratePerS(count, () => db.ops({ op: 'compact', name: 'default' }))
          if (round > 0) {
            before.push(pagesBefore)
            after.push(await livePages(db))
            fileGrowth.push(internalsOf(db).engine.stats().page_count - fileBefore)
          }
          return rate
        } finally {
          await db.close()
        }
      },
    })
    rec.figure('compact', 'compaction', 'rows/s', samples.compact)
    rec.figure('pages_before', 'live pages before compaction', 'pages', before, 'lower')
    rec.figure('pages_after', 'live pages after compaction', 'pages', after, 'lower')
    rec.figure('pages_minimum', 'live pages, same rows loaded once and compacted', 'pages', [minimum], 'lower')
    rec.figure('file_growth', 'page file growth during compaction', 'pages', fileGrowth, 'lower')
    rec.ratio('live pages after / minimum', 'pages_after', 'pages_minimum', '<=', 1.3)
    rec.note(`${count} rows, each overwritten ${churn_rounds} times before compaction`)
  },
}
