// P6: fork and snapshot of a small and a large tenant. Both share subtrees, so their
// cost should not grow with the tenant: goal p99 <= 1 ms and the two sizes within 2x.
// Each waits for one durable commit, so a bare one-row commit is timed beside them as
// the floor. The sizes alternate op by op, so machine noise falls on both alike.
import type { Database } from '../../src/database/index.js'
import { rows } from '../harness/data.js'
import { tenantdbDataset } from '../harness/datasets.js'
import { median, quantile } from '../harness/stats.js'
import { loadRows, openKv } from '../harness/tenantdb.js'
import { timeMs } from '../harness/timing.js'
import type { Workload } from '../harness/workload.js'
import { internalsOf } from '../../src/database/internals.js'

type Op = 'fork' | 'snapshot' | 'commit'

export const p06: Workload = {
  id: 'P6',
  title: 'fork and snapshot, small vs large tenant',
  async run(ctx, rec) {
    const smallRows = 1000
    const largeRows = ctx.size(1_000_000, 100_000)
    const opsPerRound = ctx.size(40, 20)
    const small = await openKv(ctx.scratch('p6-small'))
    try {
      await loadRows(small, rows, smallRows)
      await internalsOf(small).engine.checkpoint()
      const large = await tenantdbDataset(ctx, largeRows)
      const sizes: Array<[string, Database]> = [['small', small], ['large', large]]
      const all: Record<string, number[]> = {}
      const perRound: Record<string, number[]> = {}
      let serial = 0
      const contenders = Object.fromEntries(sizes.map(([name, db]) => [name, async (round: number) => {
        const ms: Record<Op, number[]> = { fork: [], snapshot: [], commit: [] }
        for (let i = 0; i < opsPerRound; i += 1) {
          const id = `p6-${serial++}`
          ms.fork.push(await timeMs(() => db.ops({ op: 'fork', name: 'default', target: id })))
          ms.snapshot.push(await timeMs(() => db.ops({ op: 'snapshot', name: 'default', target: id })))
          ms.commit.push(await timeMs(() => internalsOf(db).engine.commit([{ op: 'put', tree: 'bench/floor', key: Buffer.from(id), value: Buffer.from('x') }])))
        }
        if (round === 0) return 0
        for (const op of ['fork', 'snapshot', 'commit'] as const) {
          ;(all[`${op}_${name}`] ??= []).push(...ms[op])
          ;(perRound[`${op}_${name}`] ??= []).push(median(ms[op]))
        }
        return 0
      }])) as Record<string, (round: number) => Promise<number>>
      await ctx.rounds(contenders)
      const label = (name: string) => name === 'small' ? `${smallRows} rows` : `${largeRows} rows`
      for (const op of ['fork', 'snapshot', 'commit'] as const) {
        for (const [name] of sizes) {
          rec.figure(`${op}_${name}`, `${op === 'commit' ? 'floor: bare durable commit' : op}, ${label(name)} (median)`, 'ms', perRound[`${op}_${name}`] ?? [], 'lower')
        }
      }
      for (const op of ['fork', 'snapshot'] as const) {
        rec.ratio(`${op}: large / small`, `${op}_large`, `${op}_small`, '<=', 2)
        for (const [name] of sizes) rec.goal(`${op} p99, ${label(name)}`, quantile(all[`${op}_${name}`] ?? [], 0.99), 'ms', '<=', 1)
      }
      rec.note(`${opsPerRound} forks and snapshots per size and repetition; p99 over all ${opsPerRound * ctx.reps}`)
      rec.note(`floor p99: bare commit ${quantile(all.commit_small ?? [], 0.99).toFixed(3)} ms (small), ${quantile(all.commit_large ?? [], 0.99).toFixed(3)} ms (large)`)
    } finally {
      await small.close()
    }
  },
}
