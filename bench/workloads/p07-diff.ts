// P7: the diff of 100 changed rows between a snapshot and head, in a tenant of 1e4
// rows and one of 1e6. A diff skips the subtrees both versions share, so its cost
// follows the changes, not the tenant: goal within 2x of each other.
import type { Database } from '../../src/database/index.js'
import { key, rows, value } from '../harness/data.js'
import { tenantdbDataset } from '../harness/datasets.js'
import { loadRows, openKv } from '../harness/tenantdb.js'
import { timeMs } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'
import { internalsOf } from '../../src/database/internals.js'

const changed = 100

/** Forks `default` (left untouched for other workloads), snapshots, changes rows. */
async function prepare(db: Database, rowCount: number): Promise<() => Promise<number>> {
  await db.ops({ op: 'fork', name: 'default', target: 'p7' })
  await db.ops({ op: 'snapshot', name: 'p7', target: 'base' })
  const step = Math.floor(rowCount / changed)
  const updates = Array.from({ length: changed }, (_, j) => ({ k: key(j * step), v: value(j * step, 'b') }))
  const tenant = db.tenant('p7')
  await tenant.query('upsert kv $rows', { rows: updates })
  await internalsOf(db).engine.checkpoint()
  return () => timeMs(() => {
    const n = tenant.diff({ from: 'base', collection: 'kv' }).collections.kv?.changed.length
    if (n !== changed) throw new Error(`the diff found ${n} changed rows, expected ${changed}`)
  })
}

export const p07: Workload = {
  id: 'P7',
  title: 'diff of 100 changed rows, small vs large tenant',
  async run(ctx, rec) {
    const smallRows = 10_000
    const largeRows = ctx.size(1_000_000, 100_000)
    const small = await openKv(ctx.scratch('p7-small'))
    try {
      await loadRows(small, rows, smallRows)
      const diffSmall = await prepare(small, smallRows)
      const diffLarge = await prepare(await tenantdbDataset(ctx, largeRows), largeRows)
      const samples = await ctx.rounds({ small: diffSmall, large: diffLarge })
      rec.figure('small', `diff, ${smallRows} rows`, 'ms', samples.small, 'lower')
      rec.figure('large', `diff, ${largeRows} rows`, 'ms', samples.large, 'lower')
      rec.ratio('large / small', 'large', 'small', '<=', 2)
    } finally {
      await small.close()
    }
  },
}
