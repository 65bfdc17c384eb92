// Inserting many rows in one statement (performance.md P4): the shortcuts of the bulk
// path (no engine read for a key of a collection that is empty in the snapshot, the
// commit written as one buffer) must keep every refusal of a row-by-row insert.
import t from 'tap'
import { openDatabase } from './helpers/database.js'

const rejected = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)
const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ k: `k${String(from + i).padStart(6, '0')}`, v: `v${from + i}` }))

t.test('into an empty collection: a key repeated within the batch is refused, and nothing is written', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const kv = db.tenant('default')
  const batch = [...rows(0, 500), { k: 'k000123', v: 'again' }]
  t.match(await rejected(kv.query('insert kv $rows', { rows: batch })), { code: 'constraint_violation' })
  t.same((await kv.query('kv | count')).rows, [[0]])
})

t.test('into a collection with rows: an existing key is refused, new ones go in whole', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: rows(0, 1000) })
  t.match(await rejected(kv.query('insert kv $rows', { rows: [...rows(1000, 10), ...rows(999, 1)] })), { code: 'constraint_violation' })
  t.same((await kv.query('kv | count')).rows, [[1000]])
  await kv.query('insert kv $rows', { rows: rows(1000, 1000) })
  t.same((await kv.query('kv | count')).rows, [[2000]])
  t.same((await kv.query('kv | get "k001500" | select v')).rows, [['v1500']])
})

t.test('a unique index is kept by a bulk insert into an empty collection', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string unique }')
  const kv = db.tenant('default')
  t.match(await rejected(kv.query('insert kv $rows', { rows: [...rows(0, 100), { k: 'other', v: 'v7' }] })), { code: 'constraint_violation' })
  await kv.query('insert kv $rows', { rows: rows(0, 100) })
  t.same((await kv.query('kv | where v == "v42" | select k')).rows, [['k000042']])
})

t.test('an atomic block reads the rows its first statement inserted into an empty collection', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const r = await db.tenant('default').query('atomic { insert kv $rows; kv | get "k000003" | select v }', { rows: rows(0, 10) })
  t.same(r.rows, [['v3']])
})

t.test('a transaction over the WAL frame limit is refused as invalid, and the database keeps working', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const kv = db.tenant('default')
  const big = 'x'.repeat(1000 * 1000)
  // Just over WAL_FRAME_PAYLOAD_BYTES_MAX (512 MiB, crates/storage/src/limits.rs).
  const huge = Array.from({ length: 540 }, (_, i) => ({ k: `big${i}`, v: big }))
  t.match(await rejected(kv.query('insert kv $rows', { rows: huge })), { code: 'invalid_argument' })
  await kv.query('insert kv {k: "after", v: "still writable"}')
  t.same((await kv.query('kv | get "after" | select v')).rows, [['still writable']], 'not fail-stopped')
})
