// A prepared statement's synchronous reads (`get`, `all`, `iterate`) under a tenant's
// read budget (docs/operations.md, "Isolation"): what they examine is charged to the
// tenant, and a read that cannot wait is refused at once with `rate_limited` while the
// tenant is in debt, where `run()` waits the debt off instead.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { QueryError } from '../src/query/index.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('synchronous reads are charged, and refused at once in debt; run() waits', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'schema.eel'), 'collection items { id: int primary, n: int }\n')
  const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 'schema.eel')] })
  t.teardown(() => db.close())
  await db.ops({ op: 'create', name: 'acme' })
  const acme = db.tenant('acme')
  await acme.query('insert items $rows', { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, n: i })) })
  // 200 rows at 100 a second: 2 s of budget, less the quarter second of burst.
  await db.ops({ op: 'limit', name: 'acme', limits: { rows_examined_per_s: 100 } })
  const before = acme.usage()
  const scan = await acme.prepare('items | where n >= 0')
  t.equal(scan.all().length, 200, 'the first read is admitted: the tenant owed nothing')
  t.equal(acme.usage().rows_examined - before.rows_examined, 200, 'what it examined is charged')
  const point = await acme.prepare('items | where id == $id')
  let refused: unknown
  try {
    point.get({ id: 1 })
  } catch (err) {
    refused = err
  }
  t.ok(refused instanceof QueryError && refused.code === 'rate_limited', 'the next synchronous read is refused at once')
  t.equal((refused as QueryError).details.budget, 'rows_examined_per_s', 'naming the budget')
  t.ok(((refused as QueryError).details.retry_after_s ?? 0) >= 1, 'and when to retry')
  t.equal(acme.usage().rate_limited - before.rate_limited, 1, 'the refusal is counted')
  const started = Date.now()
  const got = await point.run({ id: 1 })
  const waited = Date.now() - started
  t.same(got.rows, [[1, 1]], 'run() answers')
  t.ok(waited >= 1200, `after waiting the debt off (${waited} ms)`)
  t.ok(acme.usage().budget_wait_ms >= 1200, 'the wait is counted')
  // Another tenant reads on, unlimited.
  await db.ops({ op: 'create', name: 'other' })
  t.same((await db.tenant('other').prepare('items | where id == 1')).all(), [], 'another tenant is not held by acme\'s debt')
})
