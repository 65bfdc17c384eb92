// Inserting many rows in one statement (docs/performance.md, P4): the shortcuts of the
// bulk path (no engine read for a key of a collection that is empty in the snapshot,
// the commit written as one buffer) must keep every refusal of a row-by-row insert.
import t from 'tap'
import { barrier } from './helpers/barrier.js'
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

// The pending writes of a transaction (src/txn/pending-writes.ts) keep ascending keys
// without a hash table, look keys up by binary search, and build the table at the
// first key out of order: each way of finding a duplicate must refuse it.
t.test('duplicates within one batch: the last key repeated, an earlier key repeated while keys ascend, and after keys went out of order', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const kv = db.tenant('default')
  const batches = {
    'last key again': [...rows(0, 300), { k: 'k000299', v: 'again' }],
    'earlier key while ascending': [...rows(0, 300), { k: 'k000007', v: 'again' }],
    'earlier key after disorder': [...rows(100, 200), ...rows(0, 50), { k: 'k000150', v: 'again' }],
    'disordered key repeated': [...rows(100, 200), ...rows(0, 50), { k: 'k000020', v: 'again' }],
  }
  for (const [name, batch] of Object.entries(batches)) {
    const err = await rejected(kv.query('insert kv $rows', { rows: batch }))
    t.match(err, { code: 'constraint_violation', message: /'kv' already has a row with k string "k0001?[0-9]+"/ }, name)
  }
  t.same((await kv.query('kv | count')).rows, [[0]], 'nothing written')
  await kv.query('insert kv $rows', { rows: [...rows(100, 200), ...rows(0, 100)] })
  t.same((await kv.query('kv | count')).rows, [[300]], 'keys out of order, all distinct: all written')
  t.same((await kv.query('kv | get "k000042" | select v')).rows, [['v42']])
})

t.test('upsert in bulk: repeated keys in the batch and existing rows are replaced, and the change feed says which', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: rows(0, 10) })
  const batch = [...rows(5, 10), { k: 'k000012', v: 'last wins' }, { k: 'k000001', v: 'replaced' }]
  await kv.query('upsert kv $rows', { rows: batch })
  t.same((await kv.query('kv | count')).rows, [[15]])
  t.same((await kv.query('kv | get "k000012" | select v')).rows, [['last wins']])
  t.same((await kv.query('kv | get "k000001" | select v')).rows, [['replaced']])
  const page = await kv.tail({ after: 0 })
  const kinds = page.events.at(-1)?.changes.map((c) => c.op[0]).join('')
  t.equal(kinds, 'uuuuuiiiiiuu', 'updates of existing rows, inserts of new ones, an update of a key written earlier in the batch')
})

t.test('an index on the bulk-inserted collection: entries for every row, unique collisions within the batch refused', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string unique, n: int = 7, index (n) }')
  const kv = db.tenant('default')
  const out_of_order = [...rows(200, 100), { k: 'a-first', v: 'v250' }]
  t.match(await rejected(kv.query('insert kv $rows', { rows: out_of_order })), { code: 'constraint_violation', message: /unique index/ })
  t.match(await rejected(kv.query('insert kv $rows', { rows: [...rows(0, 100), { k: 'zz', v: 'v0' }] })), { code: 'constraint_violation', message: /unique index/ })
  t.same((await kv.query('kv | count')).rows, [[0]])
  await kv.query('insert kv $rows', { rows: [...rows(100, 100), ...rows(0, 100)] })
  t.same((await kv.query('kv | where v == "v150" | select k')).rows, [['k000150']])
  t.same((await kv.query('kv | where n == 7 | count')).rows, [[200]], 'the default went into the index')
  t.match(await rejected(kv.query('insert kv {k: "new", v: "v3"}')), { code: 'constraint_violation', message: /unique index/ }, 'against existing rows')
})

t.test('an atomic block deletes most of what it bulk-inserted: scans in batches skip the deleted rows', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const kv = db.tenant('default')
  const r = await kv.query('atomic { insert kv $rows; kv | where k < "k002500" | delete; kv | select k | take 3 }', { rows: rows(0, 3000) })
  t.same(r.rows, [['k002500'], ['k002501'], ['k002502']])
  t.same((await kv.query('kv | count')).rows, [[500]])
  const last = await kv.query('kv | sort k desc | take 1 | select k')
  t.same(last.rows, [['k002999']])
})

t.test('a field named like an integer: rows inserted in bulk read back whole', async (t) => {
  const { db } = await openDatabase(t, 'collection odd { k: string primary, `2`: int, `1`: string? }')
  const odd = db.tenant('default')
  await odd.query('insert odd $rows', { rows: [{ k: 'b', 2: 5, 1: 'one' }, { k: 'a', 2: 6 }] })
  t.same((await odd.query('odd | select k, `1`, `2`')).rows, [['a', null, 6], ['b', 'one', 5]])
})

t.test('a concurrent writer conflicting with a bulk insert: exactly one commits, and nothing of the other is left', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: string }')
  const kv = db.tenant('default')
  for (const order of ['ascending', 'out of order']) {
    await kv.query('kv | delete')
    const batch = order === 'ascending' ? rows(0, 2000) : [...rows(1000, 1000), ...rows(0, 1000)]
    // Both writers take their snapshots before either commits, whatever the order of turns.
    const begun = barrier(2)
    const results = await Promise.allSettled([
      kv.transaction(async (tx) => { await tx.query('kv | count'); await begun.arrive(); await tx.query('insert kv $rows', { rows: batch }) }),
      kv.transaction(async (tx) => { await begun.arrive(); await tx.query('insert kv {k: "k000500", v: "theirs"}') }),
      kv.query('insert kv {k: "disjoint", v: "commits"}'),
    ])
    const [bulk, single, disjoint] = results
    t.same([bulk?.status, single?.status].sort(), ['fulfilled', 'rejected'], `${order}: one of the two overlapping writers wins`)
    const loser = [bulk, single].find((r) => r?.status === 'rejected') as PromiseRejectedResult
    t.match(loser.reason, { code: 'conflict' })
    t.equal(disjoint?.status, 'fulfilled', `${order}: a disjoint writer commits`)
    const count = (await kv.query('kv | count')).rows[0]?.[0]
    t.equal(count, bulk?.status === 'fulfilled' ? 2001 : 2, `${order}: the loser left nothing behind`)
  }
})
