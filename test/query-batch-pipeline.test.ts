// Range reads and scans that only filter, project, skip and take run a batch at a
// time (batch-pipeline.ts) instead of through stages.ts. Each case is checked against
// a model written here in plain JavaScript over the rows the test inserted, both down
// the batch path and, with a leading `sort k, n` (the primary-key order rows come in
// anyway; a sort order from the tree does not stand in for, unlike `sort k`), down the
// general path; batch-pipeline.ts's run count shows which path ran.
import t from 'tap'
import type { Value } from '../src/lang/ast.js'
import { query_rows_max } from '../src/limits.js'
import { batch_pipeline_runs } from '../src/query/exec/batch-pipeline.js'
import { openDatabase } from './helpers/database.js'

const key = (i: number) => `k${String(i).padStart(6, '0')}`

/** Runs `query` and says whether it went down the batch path. */
async function viaBatches<T>(query: () => Promise<T>): Promise<{ result: T; batched: boolean }> {
  const before = batch_pipeline_runs.count
  const result = await query()
  const runs = batch_pipeline_runs.count - before
  if (runs > 1) throw new Error(`one query ran the batch path ${runs} times`)
  return { result, batched: runs === 1 }
}

type Kv = { k: string; n: number; v: string | null }

t.test('every mix of where, select, skip and take, across batch boundaries, gives the model\'s rows down both paths', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, n: int, v: string? }')
  const kv = db.tenant('default')
  // Inserted out of key order: the model sorts them, the store must too.
  const rows: Kv[] = Array.from({ length: 2600 }, (_, i) => ({ k: key(i), n: i % 7, v: i % 5 === 0 ? null : `v${i}` }))
  await kv.query('insert kv $rows', { rows: [...rows].reverse() })
  const K = key(950)
  const all = (r: Kv): Value[] => [r.k, r.n, r.v]
  const full = ['k', 'n', 'v']
  const cases: Array<[pipeline: string, columns: string[], model: (rs: Kv[]) => Value[][]]> = [
    ['', full, (rs) => rs.map(all)],
    ['| take 0', full, () => []],
    ['| where k >= $k | take 1000', full, (rs) => rs.filter((r) => r.k >= K).slice(0, 1000).map(all)],
    ['| where k >= $k | take 1500', full, (rs) => rs.filter((r) => r.k >= K).slice(0, 1500).map(all)],
    ['| where k > $k', full, (rs) => rs.filter((r) => r.k > K).map(all)],
    ['| where k >= $k and k < "k002100"', full, (rs) => rs.filter((r) => r.k >= K && r.k < 'k002100').map(all)],
    ['| where n == 3 | skip 300 | take 20', full, (rs) => rs.filter((r) => r.n === 3).slice(300, 320).map(all)],
    ['| skip 999 | take 3', full, (rs) => rs.slice(999, 1002).map(all)],
    ['| take 1200 | skip 1100', full, (rs) => rs.slice(0, 1200).slice(1100).map(all)],
    ['| where v == null | select k, n | take 700', ['k', 'n'], (rs) => rs.filter((r) => r.v === null).slice(0, 700).map((r) => [r.k, r.n])],
    ['| select k, m: n * 2 | where m > 6 | take 5', ['k', 'm'], (rs) => rs.map((r) => [r.k, r.n * 2] as [string, number]).filter(([, m]) => m > 6).slice(0, 5)],
    ['| take 1001 | where n == 0', full, (rs) => rs.slice(0, 1001).filter((r) => r.n === 0).map(all)],
    ['| skip 2599', full, (rs) => rs.slice(2599).map(all)],
    ['| skip 5000', full, () => []],
  ]
  const emptyByDesign = new Set(['| take 0', '| skip 5000'])
  const sorted = [...rows].sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
  for (const [p, columns, model] of cases) {
    const expected = model(sorted)
    t.equal(expected.length > 0, !emptyByDesign.has(p), `kv ${p}: the case selects rows unless meant not to`)
    const fast = await viaBatches(() => kv.query(`kv ${p}`, { k: K }))
    t.ok(fast.batched, `kv ${p}: ran down the batch path`)
    t.same(fast.result.columns, columns, `kv ${p}: columns`)
    t.same(fast.result.rows, expected, `kv ${p}: the model's rows (${expected.length})`)
    t.equal(fast.result.truncated, undefined, `kv ${p}: not truncated`)
    const general = await viaBatches(() => kv.query(`kv | sort k, n ${p}`, { k: K }))
    t.notOk(general.batched, `kv | sort k, n ${p}: ran down the general path`)
    t.same(general.result.rows, expected, `kv | sort k, n ${p}: the model's rows`)
  }
  t.ok(cases.some(([, , model]) => model(sorted).length > 1000), 'some case crosses a batch boundary')
})

t.test('a scan over more rows than one response holds is truncated like the streaming stages', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary }')
  const kv = db.tenant('default')
  const keys = Array.from({ length: query_rows_max + 5 }, (_, i) => key(i))
  await kv.query('insert kv $rows', { rows: keys.map((k) => ({ k })) })
  const fast = await viaBatches(() => kv.query('kv'))
  t.ok(fast.batched, 'ran down the batch path')
  t.same(fast.result.rows, keys.slice(0, query_rows_max).map((k) => [k]), 'the first rows_max keys, in order')
  t.equal(fast.result.truncated, true)
  const exact = await viaBatches(() => kv.query('kv | take $n', { n: query_rows_max }))
  t.ok(exact.batched)
  t.equal(exact.result.rows.length, query_rows_max)
  t.equal(exact.result.truncated, undefined, 'exactly rows_max rows is not truncated')
  const general = await viaBatches(() => kv.query('kv | sort k, k'))
  t.notOk(general.batched)
  t.same(general.result.rows, fast.result.rows, 'the general path truncates the same way')
  t.equal(general.result.truncated, true)
})

t.test('an atomic block scans the rows it wrote merged with the snapshot', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, v: int }')
  const kv = db.tenant('default')
  await kv.query('insert kv $rows', { rows: Array.from({ length: 1500 }, (_, i) => ({ k: key(i * 2), v: i })) })
  const r = await viaBatches(() => kv.query('atomic { insert kv [{k: "k000001", v: -1}, {k: "k002999", v: -2}]; kv | where k >= "k000000" | skip 1 | take 2 | select v }'))
  t.ok(r.batched, 'the block\'s read ran down the batch path')
  t.same(r.result.rows, [[-1], [1]])
  const s = await viaBatches(() => kv.query('atomic { kv | where k == "k000004" | delete; kv | where k > "k000002" | take 2 | select k }'))
  t.ok(s.batched)
  t.same(s.result.rows, [['k000006'], ['k000008']], 'a row deleted in the block is not read')
})

t.test('scans read in place: batches larger than the shared buffer, and scans side by side', async (t) => {
  const { db } = await openDatabase(t, 'collection kv { k: string primary, n: int, v: string }')
  const kv = db.tenant('default')
  // Values of 600 bytes make a batch of 1000 rows bigger than the 256 KiB buffer
  // (range_buffer_bytes), every 97th of 40 KiB bigger still: batches are read again
  // into a larger buffer.
  const rows: Kv[] = Array.from({ length: 2500 }, (_, i) => ({ k: key(i), n: i, v: String(i).padEnd(i % 97 === 0 ? 40_000 : 600, 'x') }))
  for (let at = 0; at < rows.length; at += 500) await kv.query('insert kv $rows', { rows: rows.slice(at, at + 500) })
  const all = rows.map((r) => [r.k, r.n, r.v])
  const whole = await viaBatches(() => kv.query('kv'))
  t.ok(whole.batched)
  t.same(whole.result.rows, all, 'every batch read whole, through a larger buffer')
  // Scans that interleave between batches each get their own rows: a batch's bytes are
  // the next batch's buffer, so each is decoded, and the key it ends at copied, first.
  const together = await Promise.all([kv.query('kv'), kv.query('kv | where k > $k | select v, k', { k: key(700) }), kv.query('kv | skip 5 | take 2000')])
  t.same(together[0].rows, all)
  t.same(together[1].rows, rows.slice(701).map((r) => [r.v, r.k]))
  t.same(together[2].rows, all.slice(5, 2005))
})
