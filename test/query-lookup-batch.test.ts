// Lookups on the batch path (src/query/exec/batch-pipeline.ts, lookup.ts): a scan with
// lookups runs a batch of 1000 rows at a time, each lookup by primary key reading all of
// the batch's matches in one engine call. Its outcome must be the streaming path's, row
// for row: the same rows, the same failure or none (a take or the result's bound that
// stops the read before a failing row means no failure), and the same rows examined.
// The streaming path is reached by naming the rows by key (`where id in $ids`, a points
// read), which the batch path never takes.
import t from 'tap'
import { batch_pipeline_runs } from '../src/query/exec/batch-pipeline.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection items { id: int primary, d: int, to: int?, name: string }
collection others { id: int primary, k: int, name: string, index (k) }
`
const item_count = 2600

async function seeded(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, schema)
  // d is 0 at ids 7 and 2100: `10 / d` fails there. to misses others now and then, and is null at every 13th.
  const items = Array.from({ length: item_count }, (_, id) => ({ id, d: id === 7 || id === 2100 ? 0 : 1 + (id % 5), to: id % 13 === 0 ? null : (id * 7) % 400, name: `n${id % 50}` }))
  for (let at = 0; at < items.length; at += 1000) await h.q('insert items $rows', { rows: items.slice(at, at + 1000) })
  const others = Array.from({ length: 300 }, (_, id) => ({ id, k: id % 37, name: `n${id % 60}` }))
  await h.q('insert others $rows', { rows: others })
  return { ...h, ids: items.map((item) => item.id) }
}

type Outcome = { rows?: unknown[][]; truncated?: boolean; examined?: number; error?: string }

async function outcome(run: () => Promise<{ rows: unknown[][]; truncated?: boolean; stats: { rows_examined: number } }>): Promise<Outcome> {
  try {
    const r = await run()
    return { rows: r.rows, truncated: r.truncated === true, examined: r.stats.rows_examined }
  } catch (err) {
    return { error: `${(err as { code?: string }).code}: ${(err as Error).message}` }
  }
}

const pipelines = [
  // A failing row after the take: never reached, whichever side of the lookup the failure is.
  'lookup o: others on to == id | where 10 / d > 0 | take 3 | select id, n: o.name',
  'where 10 / d > 0 | lookup o: others on to == id | take 3 | select id, n: o.name',
  'where 10 / d > 0 | lookup inner o: others on to == id | take 5 | select id, n: o.name',
  // Reached: the failure is the query's.
  'lookup o: others on to == id | where 10 / d > 0 | take 10 | select id',
  'where 10 / d > 0 | lookup o: others on to == id | take 10 | select id',
  'skip 10 | where 10 / d > 0 | lookup o: others on to == id | select id',
  // A failure after a take that the row reaching the take meets.
  'skip 8 | take 2093 | lookup o: others on to == id | where 10 / d > 0 | select id',
  'skip 8 | take 2092 | lookup o: others on to == id | where 10 / d > 0 | select id',
  // Across batches, with skips and takes before and after, inner, many, index and hash lookups.
  'skip 8 | lookup inner o: others on to == id | skip 990 | take 30 | select id, o: o.id',
  'skip 8 | lookup many ks: others on to == k | where len(ks) > 7 | take 40 | select id, n: len(ks)',
  'skip 8 | lookup h: others on name == name | lookup o: others on h.id == id | take 1500 | select id, h: h.id, o: o.name',
  'skip 2101 | lookup o: others on to + 1 == id | lookup inner p: others on o.k == id | select id, p: p.name',
  'skip 2101 | take 0 | lookup h: others on name == name | select id',
  // The batch path decodes only the fields of the rows found that later stages read
  // (lookup-fields.ts); the streaming path decodes all: the same rows either way.
  'lookup o: others on to == id | where o.k > 3 | take 700 | select id, n: o.name',
  'lookup o: others on to == id | take 50 | select id, o',
  'lookup o: others on to == id | where o != null | take 50 | select id, n: o.name',
  'lookup inner o: others on to == id | select id',
  'lookup many ks: others on to == k | take 60 | select id, ks, n: len(ks)',
  'lookup o: others on to == id | lookup p: others on o.k == id | take 900 | select id, p: p.name, o: o.id',
]

t.test('the batch path gives the streaming path\'s rows, failures and rows examined', async (t) => {
  const { q, ids } = await seeded(t)
  for (const stages of pipelines) {
    const before = batch_pipeline_runs.count
    const batched = await outcome(() => q(`items | ${stages}`))
    t.equal(batch_pipeline_runs.count - before, 1, `${stages}: the scan took the batch path`)
    const streamed = await outcome(() => q(`items | where id in $ids | ${stages}`, { ids }))
    t.equal(batch_pipeline_runs.count - before, 1, `${stages}: the points read did not`)
    t.same(batched, streamed, stages)
  }
  const failed = await outcome(() => q('items | lookup o: others on to == id | where 10 / d > 0 | take 10 | select id'))
  t.match(failed.error, /division by zero/, 'a reached failure is raised')
})

t.test('the result\'s bound stops the read before a failing row as a take does', async (t) => {
  const { runner, ids } = await seeded(t)
  const text = 'lookup o: others on to == id | where 10 / d > 0 | select id, n: o.name'
  for (const rows_max of [5, 7, 8, 2000, 2099]) {
    const batched = await outcome(() => runner.run('default', `items | skip 8 | ${text}`, {}, { rows_max }))
    const streamed = await outcome(() => runner.run('default', `items | where id in $ids | skip 8 | ${text}`, { ids }, { rows_max }))
    t.same(batched, streamed, `rows_max ${rows_max}`)
    // Ids 8 to 2099 pass (2092 rows); the failing row is the next.
    if (rows_max < 2092) t.equal(batched.truncated, true, `rows_max ${rows_max}: truncated before the failing row`)
    else t.match(batched.error, /division by zero/, `rows_max ${rows_max}: the failing row is reached`)
  }
})

t.test('a lookup on the batch path reads the transaction\'s own writes', async (t) => {
  const { q, ids } = await seeded(t)
  const writes = 'insert others {id: 614, k: 1, name: "new"}; others | get 14 | delete; others | get 21 | update {name: "changed"}'
  const read = (from: string) => `${from} | lookup o: others on to + 600 == id | lookup p: others on to == id | select id, o: o.name, p: p.name`
  // Both reads in one block, after its writes: the batch path (a scan) and the streaming one.
  const r = await q(`atomic { ${writes}; ${read('items')}; ${read('items | where id in $ids')} }`, { ids })
  const [batched, streamed] = (r.results ?? []).slice(3)
  t.same(batched?.rows, streamed?.rows)
  const byId = new Map(batched?.rows.map((row) => [row[0], row.slice(1)]))
  t.same(byId.get(2), ['new', null], 'id 2 (to 14): the inserted row found, the deleted one not')
  t.same(byId.get(3), [null, 'changed'], 'id 3 (to 21): the updated row as written')
  t.same(byId.get(1), [null, 'n7'], 'id 1 (to 7): a committed row')
})
