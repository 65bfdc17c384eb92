// R7: a snapshot-isolation checker over a recorded history. Eight clients run atomic
// read-modify-write blocks on a few hot rows through the embedding API, retrying on
// conflict. Each committed block records the value it read; on each row the committed
// reads must be exactly initial, initial + 1, … (no two committed blocks read the same
// version: no lost update), the final value must count every committed increment, and
// every failure must be a reported conflict. The same checker must flag a run with the
// conflict check switched off, or it proves nothing.
import t, { type Test } from 'tap'
import type { Database } from '../src/database/index.js'
import { openDatabase } from './helpers/database.js'
import { withoutConflictCheck } from './helpers/negative-control.js'

const schema = 'collection counters { id: int primary, n: int }'
const clients = 8
const rounds = Number(process.env.TENANTDB_SI_ROUNDS ?? 40)
const hot = [1, 2, 3]

interface History {
  committed: Array<{ client: number; key: number; read: number; lsn: number }>
  conflicts: number
  other: unknown[]
}

async function workload(db: Database, seed: number): Promise<History> {
  const history: History = { committed: [], conflicts: 0, other: [] }
  const tenant = db.tenant('default')
  let state = seed
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31)
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    for (let round = 0; round < rounds; round += 1) {
      const key = hot[next() % hot.length] as number
      for (;;) {
        try {
          const result = await tenant.query(
            'atomic { counters | get $k | select n; counters | where id == $k | update {n: n + 1} }', { k: key })
          history.committed.push({ client, key, read: result.results?.[0]?.rows[0]?.[0] as number, lsn: result.lsn as number })
          break
        } catch (err) {
          if ((err as { code?: string }).code === 'conflict') {
            history.conflicts += 1
            continue
          }
          history.other.push(err)
          break
        }
      }
    }
  }))
  return history
}

/** The anomalies of a history, as sentences; empty when it is snapshot-isolated. */
async function check(db: Database, history: History): Promise<string[]> {
  const problems: string[] = history.other.map((e) => `a block failed without a conflict: ${String(e)}`)
  for (const key of hot) {
    const reads = history.committed.filter((c) => c.key === key).sort((a, b) => a.lsn - b.lsn).map((c) => c.read)
    reads.forEach((read, i) => {
      if (read !== i) problems.push(`row ${key}: the committed block #${i + 1} read ${read} (lost update: another committed block read the same version)`)
    })
    const final = (await db.tenant('default').query('counters | get $k | select n', { k: key })).rows[0]?.[0]
    if (final !== reads.length) problems.push(`row ${key}: ${reads.length} increments committed but the row holds ${String(final)}`)
  }
  return problems
}

async function seeded(t: Test) {
  const { db } = await openDatabase(t, schema)
  await db.tenant('default').query('insert counters $rows', { rows: hot.map((id) => ({ id, n: 0 })) })
  return db
}

t.test('R7: concurrent read-modify-write blocks lose no update; conflicts are reported', async (t) => {
  const db = await seeded(t)
  const history = await workload(db, 17)
  t.equal(history.committed.length, clients * rounds, 'every block eventually committed')
  t.ok(history.conflicts > 0, `${history.conflicts} conflicts were reported and retried (the clients did overlap)`)
  t.same(await check(db, history), [], 'the history is snapshot-isolated')
  t.comment(`${history.committed.length} committed, ${history.conflicts} conflicts`)
})

t.test('R7: the checker flags a build whose conflict check is switched off', async (t) => {
  const db = await seeded(t)
  withoutConflictCheck(db)
  const history = await workload(db, 17)
  const problems = await check(db, history)
  t.ok(problems.some((p) => p.includes('lost update')), `the checker found ${problems.length} anomalies`)
})
