// Range reads and scans that only filter, project, skip and take run a batch at a
// time (batch-pipeline.ts) instead of through stages.ts. Each case is checked against
// the streaming stages: a leading `sort k` (the primary-key order rows come in anyway)
// sends the same pipeline down the general path.
import t from 'tap'
import { query_rows_max } from '../src/limits.js'
import { openDatabase } from './helpers/database.js'

const key = (i: number) => `k${String(i).padStart(6, '0')}`

t.test('every mix of where, select, skip and take, across batch boundaries, agrees with the streaming stages', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, n: int, v: string? }')
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: Array.from({ length: 2600 }, (_, i) => ({ k: key(i), n: i % 7, v: i % 5 === 0 ? null : `v${i}` })) })
  const pipelines = [
    '',
    '| take 0',
    '| where k >= $k | take 1000',
    '| where k >= $k | take 1500',
    '| where k > $k',
    '| where k >= $k and k < "k002100"',
    '| where n == 3 | skip 400 | take 20',
    '| skip 999 | take 3',
    '| take 1200 | skip 1100',
    '| where v == null | select k, n | take 700',
    '| select k, m: n * 2 | where m > 6 | take 5',
    '| take 1001 | where n == 0',
    '| skip 2599',
    '| skip 5000',
  ]
  for (const p of pipelines) {
    const fast = await kv.query(`kv ${p}`, { k: key(950) })
    const general = await kv.query(`kv | sort k ${p}`, { k: key(950) })
    t.same(fast.rows, general.rows, `kv ${p}`)
    t.same(fast.columns, general.columns)
    t.equal(fast.truncated, general.truncated)
  }
})

t.test('a scan over more rows than one response holds is truncated like the streaming stages', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary }')
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: Array.from({ length: query_rows_max + 5 }, (_, i) => ({ k: key(i) })) })
  const fast = await kv.query('kv')
  t.equal(fast.rows.length, query_rows_max)
  t.equal(fast.truncated, true)
  const exact = await kv.query('kv | take $n', { n: query_rows_max })
  t.equal(exact.truncated, undefined, 'exactly rows_max rows is not truncated')
  t.same(fast.rows, (await kv.query('kv | sort k')).rows)
})

t.test('an atomic block scans the rows it wrote merged with the snapshot', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: int }')
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: Array.from({ length: 1500 }, (_, i) => ({ k: key(i * 2), v: i })) })
  const r = await kv.query('atomic { insert kv [{k: "k000001", v: -1}, {k: "k002999", v: -2}]; kv | where k >= "k000000" | skip 1 | take 2 | select v }')
  t.same(r.rows, [[-1], [1]])
  const s = await kv.query('atomic { kv | where k == "k000004" | delete; kv | where k > "k000002" | take 2 | select k }')
  t.same(s.rows, [['k000006'], ['k000008']], 'a row deleted in the block is not read')
})
