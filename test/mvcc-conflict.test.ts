// First-committer-wins: overlapping transactions that write the same key, or claim
// the same unique value, cannot both commit; the loser fails with conflict and leaves
// nothing behind. Disjoint writes both commit.
import t from 'tap'
import { barrier } from './helpers/barrier.js'
import { withoutConflictCheck } from './helpers/negative-control.js'
import { harness } from './helpers/query-runner.js'
import type { QueryRunner } from '../src/query/index.js'

const schema = 'collection c { id: int primary, n: int, tag: string? unique }'

/**
 * Two increments of row 1's n that overlap by construction: each reads n, then waits
 * until the other has read too, so both snapshots are taken before either commits,
 * however the scheduler orders their turns.
 */
function incrementer(runner: QueryRunner): () => Promise<void> {
  const bothRead = barrier(2)
  return () => runner.transaction('default', async (tx) => {
    const n = (await tx.query('c | get 1 | select n')).rows[0]?.[0] as number
    await bothRead.arrive()
    await tx.query('c | where id == 1 | update {n: $n}', { n: n + 1 })
  })
}

t.test('conflict: two overlapping increments of one row', async (t) => {
  const { q, runner } = await harness(t, schema)
  await q('insert c [{id: 1, n: 0}, {id: 2, n: 0}]')
  const increment = incrementer(runner)
  const results = await Promise.allSettled([increment(), increment(), q('c | where id == 2 | update {n: n + 1}')])
  const [a, b, other] = results
  const outcomes = [a, b].map((r) => r?.status)
  t.same(outcomes.sort(), ['fulfilled', 'rejected'], 'exactly one of the two overlapping increments commits')
  const loser = [a, b].find((r) => r?.status === 'rejected') as PromiseRejectedResult
  t.match(loser.reason, { name: 'QueryError', code: 'conflict' })
  t.equal(other?.status, 'fulfilled', 'a disjoint write commits')
  t.same((await q('c | select n')).rows, [[1], [1]], 'no lost update, no partial effect')
})

t.test('conflict: two transactions claiming one unique value', async (t) => {
  const { q } = await harness(t, schema)
  const results = await Promise.allSettled([
    q('insert c {id: 10, n: 0, tag: "x"}'),
    q('insert c {id: 11, n: 0, tag: "x"}'),
  ])
  t.same(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
  t.same((await q('c | where tag == "x" | count')).rows, [[1]])
})

t.test('the conflict check is what prevents lost updates (negative control: the test-only hook turns it off)', async (t) => {
  const { q, committer, runner } = await harness(t, schema)
  await q('insert c {id: 1, n: 0}')
  withoutConflictCheck(committer)
  const increment = incrementer(runner)
  await Promise.all([increment(), increment()])
  t.same((await q('c | get 1 | select n')).rows, [[1]], 'without it, one increment is lost')
})
