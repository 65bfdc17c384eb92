// A tenant's commit budget holds its rate over real HTTP (docs/operations.md,
// "Isolation"; src/isolation/budget-table.ts): 40 writes in flight for about 4.5 s
// against commits_per_s 50 commit 50 a second once the burst (budget_burst_ms of them)
// is spent, within 10 %, and none is refused while the queue stays within the budget's
// wait; a tenant without a budget writing at the same time is neither refused nor held
// to that rate.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { api, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'budget-accuracy-token-0123456789'
const per_s = 50
const in_flight = 40
const drive_ms = 4500
// Measured from the end of the first second (the burst and the queue's start) to 4 s.
const window_ms: [number, number] = [1000, 4000]

t.test('commits_per_s 50 commits 50 a second under 40 writes in flight; an unlimited tenant is not slowed', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'schema.eel'), 'collection items { id: int primary, v: int }\n')
  const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 'schema.eel')] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  for (const name of ['slow', 'free']) await db.ops({ op: 'create', name })
  await db.ops({ op: 'limit', name: 'slow', limits: { commits_per_s: per_s } })

  let next = 1
  const started = performance.now()
  const results = { slow: { acked: [] as number[], refused: 0, other: [] as string[] }, free: { acked: [] as number[], refused: 0, other: [] as string[] } }
  const writer = async (tenant: 'slow' | 'free') => {
    while (performance.now() - started < drive_ms) {
      const res = await call(`/api/v1/t/${tenant}/query`, { json: { query: 'insert items {id: $id, v: 1}', params: { id: next++ } } })
      const at = performance.now() - started
      if (res.status === 200) results[tenant].acked.push(at)
      else if (res.status === 429) results[tenant].refused += 1
      else results[tenant].other.push(`${res.status} ${JSON.stringify(res.body)}`)
    }
  }
  await Promise.all([
    ...Array.from({ length: in_flight }, () => writer('slow')),
    ...Array.from({ length: 8 }, () => writer('free')),
  ])

  const inWindow = (times: number[]) => times.filter((at) => at >= window_ms[0] && at < window_ms[1]).length
  const expected = (per_s * (window_ms[1] - window_ms[0])) / 1000
  const slow = inWindow(results.slow.acked)
  t.ok(Math.abs(slow - expected) <= expected * 0.1, `the budgeted tenant committed ${slow} in the window, expected ${expected} ± 10 %`)
  t.equal(results.slow.refused, 0, 'its writers waited for the budget, none past --budget-wait-ms')
  t.same(results.slow.other, [])
  const free = inWindow(results.free.acked)
  t.equal(results.free.refused, 0, 'the unlimited tenant is never refused')
  t.same(results.free.other, [])
  // How many it commits is the disk's (every write waits for its fsync, and other tests
  // share the disk); that the other's budget never held it is the claim.
  t.ok(free > expected, `the unlimited tenant committed ${free} in the window, beyond the other's budget`)
  t.equal(db.tenant('free').usage().budget_wait_ms, 0, 'it never waited for a budget')
  const count = (await db.tenant('slow').query('items | count')).rows[0]?.[0]
  t.equal(count, results.slow.acked.length, 'every acknowledged write of the budgeted tenant is there')
})
