// Order from the tree: a sort on the primary key, or on an index's fields after
// equalities on its leading ones, reads in (or against) key order and stops at take;
// rows_examined shows it. The rows are those a sort would give, ties included.
import t from 'tap'
import { harness } from './helpers/query-runner.js'

const schema = `
collection items { id: int primary, g: string, at: int?, n: int, index (g, at) }
`

async function seeded(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, schema)
  // 3000 rows: more than one read batch (1000); `at` has ties and nulls.
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, g: i % 3 === 0 ? 'a' : 'b', at: i % 10 === 0 ? null : i % 50, n: i }))
  await h.q('insert items $rows', { rows })
  return { ...h, rows }
}

t.test('sort on the primary key reads the tree in order and stops at take', async (t) => {
  const { q } = await seeded(t)
  const asc = await q('items | sort id | take 3 | select id')
  t.same(asc.rows, [[1], [2], [3]])
  t.equal(asc.stats.rows_examined, 3)
  const desc = await q('items | sort id desc | skip 2 | take 3 | select id')
  t.same(desc.rows, [[2998], [2997], [2996]])
  t.equal(desc.stats.rows_examined, 5, 'skip + take rows, read backwards')
  const ranged = await q('items | where id < 1500 and id >= 10 | sort id desc | take 2 | select id')
  t.same(ranged.rows, [[1499], [1498]])
  t.same(ranged.plan, { collection: 'items', access: 'primary' })
  t.equal(ranged.stats.rows_examined, 2, 'a where range on the same key, read backwards')
  const points = await q('items | where id in [5, 9, 7] | sort id desc | select id')
  t.same(points.rows, [[9], [7], [5]])
  const filtered = await q('items | where n % 7 == 0 | sort id desc | take 2 | select id')
  t.same(filtered.rows, [[2997], [2990]])
  t.equal(filtered.stats.rows_examined, 11, 'a filter is still applied to the rows read, and reading stops once 2 passed')
})

t.test('sort on index fields after an equality reads the index in order', async (t) => {
  const { q, rows } = await seeded(t)
  const model = (g: string, desc: boolean) => rows.filter((r) => r.g === g)
    .map((r, seq) => ({ r, seq }))
    .sort((x, y) => {
      const ax = x.r.at ?? -Infinity
      const ay = y.r.at ?? -Infinity
      return (ax === ay ? 0 : (ax < ay ? -1 : 1) * (desc ? -1 : 1)) || x.seq - y.seq
    }).map(({ r }) => [r.id, r.at])
  const asc = await q('items | where g == "a" | sort at | take 15 | select id, at')
  t.same(asc.rows, model('a', false).slice(0, 15), 'nulls first, ties in primary-key order')
  t.same(asc.plan, { collection: 'items', access: 'index', index: 'g_at' })
  t.equal(asc.stats.rows_examined, 15)
  const desc = await q('items | where g == "b" | sort at desc | take 40 | select id, at')
  t.same(desc.rows, model('b', true).slice(0, 40), 'read backwards, ties still in primary-key order')
  t.equal(desc.stats.rows_examined, 40, 'a run of ties is gathered as index entries; only the rows returned are read')
  const all = await q('items | where g == "b" | sort at desc | select id, at')
  t.same(all.rows, model('b', true), 'without take too')
  const ranged = await q('items | where g == "b" and at > 45 | sort at desc, id desc | take 3 | select id, at')
  t.same(ranged.rows, [[3000, 49], [2900, 49], [2850, 49]], 'a range on the sorted field; the primary key closes the sort')
  t.equal(ranged.stats.rows_examined, 3)
  const byIndex = await q('items | sort g, at | take 4 | select id')
  t.same(byIndex.rows, model('a', false).slice(0, 4).map((r) => [r[0]]), 'no where: the index is read whole, in order, until take')
  t.equal(byIndex.stats.rows_examined, 4)
})

t.test('an index chosen by its equalities gives primary-key order, backwards too', async (t) => {
  const { q, rows } = await seeded(t)
  const ids = rows.filter((r) => r.g === 'a' && r.at === 3).map((r) => [r.id])
  const desc = await q('items | where g == "a" and at == 3 | sort id desc | select id')
  t.same(desc.rows, [...ids].reverse())
  t.same(desc.plan, { collection: 'items', access: 'index', index: 'g_at' })
  const some = await q('items | where g == "b" | sort id desc | take 2 | select id')
  t.same(some.rows, [[3000], [2999]], 'the keys the index names, sorted and reversed')
  const explained = await q('explain items | sort id desc | take 1')
  t.same(explained.rows, [['scan on items']], 'explain plans it too')
})

t.test('sorts the tree cannot give are still sorted', async (t) => {
  const { q } = await seeded(t)
  const mixed = await q('items | where g == "a" | sort at, id desc | take 2 | select id')
  t.equal(mixed.stats.rows_examined, 1000, 'directions differ: every matching row is read and sorted')
  t.same(mixed.rows, [[2971], [2941]])
  const other = await q('items | sort n desc | take 1 | select id')
  t.same(other.rows, [[3000]])
  t.equal(other.stats.rows_examined, 3000)
  const prefix = await q('items | sort g | take 1 | select id')
  t.equal(prefix.stats.rows_examined, 3000, 'a sort on part of an index would break ties by its other fields, not by key: sorted')
  t.same(prefix.rows, [[1]])
})
