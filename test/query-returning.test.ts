// `returning` on insert, upsert, update and delete: the written rows come back (auto
// ids included), projected like a select; without it the answer stays `affected`.
import t from 'tap'
import { EelError, formatDiagnostic } from '../src/lang/diagnostic.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection notes { title: string, created: timestamp = now(), n: int = 0, index (n) }
collection tags { name: string primary, uses: int = 0 }
`

t.test('insert returning gives back auto ids and defaults', async (t) => {
  const { runner } = await harness(t, schema)
  const at = new Date('2024-05-01T10:00:00Z')
  const q = (text: string, params = {}) => runner.run('default', text, params, { now: at })
  const one = await q('insert notes {title: "a"} returning id, created')
  t.same(one.columns, ['id', 'created'])
  t.same(one.rows, [[1, at]])
  const many = await q('insert notes [{title: "b"}, {title: "c", n: 2}] returning id, up: upper(title), n')
  t.same(many.rows, [[2, 'B', 0], [3, 'C', 2]], 'in the order written')
  const all = await q('insert notes $rows returning *', { rows: [{ title: 'd' }] })
  t.same(all.columns, ['id', 'title', 'created', 'n'], 'every field, in declaration order')
  t.same(all.rows, [[4, 'd', at, 0]])
  t.same((await q('insert notes {title: "e"}')).rows, [[1]], 'without returning: affected')
  t.ok(all.lsn !== undefined, 'a write still reports its LSN')
})

t.test('upsert, update and delete returning', async (t) => {
  const { q } = await harness(t, schema)
  await q('insert tags [{name: "x"}, {name: "y", uses: 5}]')
  t.same((await q('upsert tags {name: "x", uses: 9} returning name, uses')).rows, [['x', 9]])
  const updated = await q('tags | where uses > 0 | update {uses: uses + 1} returning name, before: uses - 1, uses')
  t.same(updated.rows, [['x', 9, 10], ['y', 5, 6]], 'the rows after the update')
  const deleted = await q('tags | where name == "y" | delete returning *')
  t.same(deleted.columns, ['name', 'uses'])
  t.same(deleted.rows, [['y', 6]], 'the rows as they were')
  t.same((await q('tags | count')).rows, [[1]])
  const none = await q('tags | where name == "zz" | delete returning name')
  t.same(none, { ...none, columns: ['name'], rows: [] }, 'nothing deleted, nothing returned')
  const block = await q('atomic { insert tags {name: "z"} returning name; tags | get "z" | update {uses: 3} returning uses }')
  t.same(block.results?.map((r) => r.rows), [[['z']], [[3]]], 'each statement of a block returns its own rows')
})

t.test('returning is checked against the collection', async (t) => {
  const { q } = await harness(t, schema)
  const err = await q('insert notes {title: "a"} returning id, titel').then(() => undefined, (e: unknown) => e)
  t.type(err, EelError)
  t.equal(formatDiagnostic((err as EelError).diagnostic), "1:41 unknown field 'titel' in 'notes'; did you mean 'title'?")
  const twice = await q('insert notes {title: "a"} returning id, id').then(() => undefined, (e: unknown) => e)
  t.match((twice as EelError).message, /column 'id' is returned twice/)
  t.same((await q('notes | count')).rows, [[0]], 'a refused statement wrote nothing')
})

t.test('returning stops at rows_max and says so; every row is still written', async (t) => {
  const { runner } = await harness(t, schema)
  const rows = Array.from({ length: 5 }, (_, i) => ({ title: `t${i}` }))
  const result = await runner.run('default', 'insert notes $rows returning id', { rows }, { rows_max: 3 })
  t.same(result.rows, [[1], [2], [3]])
  t.equal(result.truncated, true)
  t.same((await runner.run('default', 'notes | count')).rows, [[5]])
})
