// A tenant's snapshot holds only that tenant's pages (docs/operations.md,
// "Disk space"): snapshots of a one-row tenant taken while a large tenant is rewritten
// and compacted over and over keep the page file near one copy of the large tenant,
// and still read, restore and fork as they were taken.
import t from 'tap'
import { Database } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import { openDatabase } from './helpers/database.js'

const schema = 'collection kv { k: string primary, v: string }'
const rows_hv = 4000
const rounds = 6
const value = (n: number, salt: number) => `${n}:${salt}:`.padEnd(400, 'v')

/** Rewrites every row of hv, 1 000 per commit. */
async function rewriteHv(db: Database, salt: number): Promise<void> {
  for (let at = 0; at < rows_hv; at += 1000) {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ k: `key${at + i}`, v: value(at + i, salt) }))
    await db.tenant('hv').query('upsert kv $rows', { rows })
  }
}

const rowsOf = async (db: Database, tenant: string, snapshot?: string): Promise<unknown[][]> =>
  (await db.tenant(tenant).query('kv | select k, v', {}, snapshot === undefined ? {} : { snapshot })).rows

t.test("snapshots of one tenant do not hold another tenant's rewritten pages", async (t) => {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'hv' })
  await db.ops({ op: 'create', name: 'w1' })
  await rewriteHv(db, 0)
  await db.tenant('w1').query('insert kv {k: "only", v: "round 0"}')
  await db.ops({ op: 'compact', name: 'hv' })
  // One copy of hv (and w1's row and the catalog): what every round should come back to.
  const one = db.stats().pages
  for (let round = 1; round <= rounds; round += 1) {
    await db.ops({ op: 'snapshot', name: 'w1', target: `s${round}` })
    await db.tenant('w1').query('kv | update {v: $v}', { v: `round ${round}` })
    await rewriteHv(db, round)
    await db.ops({ op: 'compact', name: 'hv' })
  }
  const after = db.stats().pages
  t.comment(`one copy of hv: ${one.live} live pages, ${one.file_bytes} bytes; after ${rounds} rounds: ${after.live} live pages, ${after.file_bytes} bytes`)
  // A snapshot holding hv's old version would add a whole copy of hv per round.
  t.ok(after.live <= one.live * 1.3, `live pages stay near one copy of hv: ${one.live} → ${after.live}`)
  t.ok(after.file_bytes <= one.file_bytes * 1.3, `the page file stays near one copy of hv: ${one.file_bytes} → ${after.file_bytes} bytes`)

  for (let round = 1; round <= rounds; round += 1) {
    t.same(await rowsOf(db, 'w1', `s${round}`), [['only', `round ${round - 1}`]], `snapshot s${round} reads w1 as it was`)
  }
  t.same((await rowsOf(db, 'hv')).length, rows_hv, 'hv keeps its rows')
  const diff = db.tenant('w1').diff({ from: 's2', to: 's4' }).collections.kv
  t.same(diff?.changed.map((c) => [c.before.v, c.after.v]), [['round 1', 'round 3']], 'a diff between two snapshots sees the one change')

  await db.ops({ op: 'fork', name: 'w1@s3', target: 'w2' })
  t.same(await rowsOf(db, 'w2'), [['only', 'round 2']], 'a fork from a snapshot has its rows')
  t.same((await rowsOf(db, 'hv')).length, rows_hv, 'hv is untouched by the fork')
  await db.ops({ op: 'restore', name: 'w1@s2' })
  t.same(await rowsOf(db, 'w1'), [['only', 'round 1']], 'a restore brings the snapshot back')
  t.same(await rowsOf(db, 'w1', 's5'), [['only', 'round 4']], 'later snapshots stay')
  const report = await internalsOf(db).engine.verify()
  t.same(report.problems, [], 'verify recounts the books')
})
