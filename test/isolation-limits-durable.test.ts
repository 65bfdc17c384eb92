// Tenant limits and what a tenant holds, across what rewrites or reloads them (docs/
// operations.md, "Isolation"): a close and reopen, a kill -9 of a real server, a fork
// (the fork holds what its source holds), a restore, and a delete then a new tenant of
// the same name. After each, the usage's live bytes and rows equal a recount read from
// the tenant's trees, and the limits still refuse.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { QueryError } from '../src/query/index.js'
import { api } from './helpers/http-server.js'
import { held, recount } from './helpers/live-recount.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'isolation-durable-token-0123456789'
const schema = 'collection items { id: int primary, n: int, s: string, index (n) }\n'

function layout(t: Test): { dir: string; schemaFile: string } {
  const root = tempDir(t)
  const schemaFile = join(root, 'schema.eel')
  writeFileSync(schemaFile, schema)
  return { dir: join(root, 'db'), schemaFile }
}

const rows = (from: number, count: number, s = 'x') => Array.from({ length: count }, (_, i) => ({ id: from + i, n: (from + i) % 7, s: `${s}${from + i}` }))

async function code(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn()
    return 'ok'
  } catch (err) {
    if (err instanceof QueryError) return err.code
    throw err
  }
}

t.test('limits and live usage survive a close and reopen', async (t) => {
  const { dir, schemaFile } = layout(t)
  let db = await Database.open(dir, { schema: [schemaFile] })
  await db.ops({ op: 'create', name: 'acme' })
  await db.tenant('acme').query('insert items $rows', { rows: rows(1, 40, 'r'.repeat(30)) })
  await db.tenant('acme').query('items | where id <= 10 | delete')
  await db.ops({ op: 'limit', name: 'acme', limits: { storage_rows: 32, statement_rows_examined: 1000 } })
  const before = held(db, 'acme')
  t.same(before, { ...recount(db, 'acme'), rows: 30 })
  await db.close()

  db = await Database.open(dir, { schema: [schemaFile] })
  t.teardown(() => db.close())
  t.same(db.tenant('acme').usage().own_limits, { storage_rows: 32, statement_rows_examined: 1000 })
  t.same(held(db, 'acme'), before, 'the usage read back from its mark')
  t.same(held(db, 'acme'), recount(db, 'acme'))
  t.equal(await code(() => db.tenant('acme').query('insert items $rows', { rows: rows(100, 3) })), 'quota_exceeded', 'the quota still refuses')
  t.equal(await code(() => db.tenant('acme').query('insert items $rows', { rows: rows(100, 2) })), 'ok')
  t.same(held(db, 'acme'), { ...recount(db, 'acme'), rows: 32 })
})

t.test('limits and live usage survive a kill -9 of the server', async (t) => {
  const { dir, schemaFile } = layout(t)
  const server = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--schema', schemaFile, '--token', token, '--tenant-limit', 'storage_rows=1000'])
  const [, origin] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/)
  const call = api(origin as string, token)
  t.equal((await call('/api/v1/t/acme/ops', { json: { op: 'create' } })).status, 200)
  t.equal((await call('/api/v1/t/acme/ops', { json: { op: 'limit', limits: { storage_rows: 6, statement_time_ms: 2000 } } })).status, 200)
  for (let i = 0; i < 5; i += 1) {
    t.equal((await call('/api/v1/t/acme/query', { json: { query: 'insert items $rows', params: { rows: rows(1 + i, 1, 'k'.repeat(i * 10)) } } })).status, 200)
  }
  const refused = await call('/api/v1/t/acme/query', { json: { query: 'insert items $rows', params: { rows: rows(50, 2) } } })
  t.equal(refused.status, 403, 'the server refuses past the tenant\'s quota, not its default')
  server.child.kill('SIGKILL')
  await server.exited

  const db = await Database.open(dir, { schema: [schemaFile] })
  t.teardown(() => db.close())
  t.same(db.tenant('acme').usage().own_limits, { storage_rows: 6, statement_time_ms: 2000 })
  t.same(held(db, 'acme'), { ...recount(db, 'acme'), rows: 5 }, 'the usage mark came back with the rows it counts')
  t.equal(await code(() => db.tenant('acme').query('insert items $rows', { rows: rows(50, 2) })), 'quota_exceeded')
})

t.test('live usage is right after a fork, a restore and a delete then a new tenant of the same name', async (t) => {
  const { dir, schemaFile } = layout(t)
  let db = await Database.open(dir, { schema: [schemaFile] })
  await db.ops({ op: 'create', name: 'acme' })
  const a = () => db.tenant('acme')
  await a().query('insert items $rows', { rows: rows(1, 50, 'a'.repeat(20)) })
  await db.ops({ op: 'snapshot', name: 'acme', target: 's1' })
  const at_s1 = held(db, 'acme')
  await a().query('insert items $rows', { rows: rows(100, 30, 'b'.repeat(70)) })
  await a().query('items | where id <= 5 | delete')
  await a().query('items | where id > 100 and id < 110 | update {s: "short"}')
  t.same(held(db, 'acme'), recount(db, 'acme'))

  // A tenant of the fork's name was read (its usage loaded), then deleted: the fork is not that one.
  await db.ops({ op: 'create', name: 'copy' })
  await db.tenant('copy').query('insert items $rows', { rows: rows(1, 7) })
  t.equal(held(db, 'copy').rows, 7)
  await db.ops({ op: 'delete', name: 'copy' })
  await db.ops({ op: 'fork', name: 'acme', target: 'copy' })
  t.same(held(db, 'copy'), held(db, 'acme'), 'the fork holds what its source holds')
  t.same(held(db, 'copy'), recount(db, 'copy'))
  await db.ops({ op: 'fork', name: 'acme@s1', target: 'old' })
  t.same(held(db, 'old'), at_s1, 'a fork of a snapshot holds what the snapshot held')
  t.same(held(db, 'old'), recount(db, 'old'))
  await db.tenant('copy').query('insert items {id: 1000, n: 1, s: "only in the fork"}')
  t.same(held(db, 'copy'), recount(db, 'copy'))
  t.same(held(db, 'acme'), recount(db, 'acme'), 'the source unchanged by the fork\'s write')

  await db.ops({ op: 'restore', name: 'acme@s1' })
  t.same(held(db, 'acme'), at_s1, 'a restore brings back what the snapshot held')
  t.same(held(db, 'acme'), recount(db, 'acme'))
  await a().query('insert items {id: 2000, n: 1, s: "after restore"}')
  t.same(held(db, 'acme'), recount(db, 'acme'))

  await db.ops({ op: 'delete', name: 'old' })
  await db.ops({ op: 'create', name: 'old' })
  t.same(held(db, 'old'), { bytes: 0, rows: 0 }, 'a new tenant of a deleted one\'s name holds nothing')
  t.same(recount(db, 'old'), { bytes: 0, rows: 0 })
  await db.ops({ op: 'limit', name: 'old', limits: { storage_rows: 2 } })
  t.equal(await code(() => db.tenant('old').query('insert items $rows', { rows: rows(1, 3) })), 'quota_exceeded', 'its quota counts from nothing')
  await db.tenant('old').query('insert items $rows', { rows: rows(1, 2) })
  t.same(held(db, 'old'), { ...recount(db, 'old'), rows: 2 })

  const expected = Object.fromEntries(['acme', 'copy', 'old'].map((name) => [name, held(db, name)]))
  await db.close()
  db = await Database.open(dir, { schema: [schemaFile] })
  t.teardown(() => db.close())
  for (const name of ['acme', 'copy', 'old']) {
    t.same(held(db, name), expected[name], `${name} after reopen`)
    t.same(held(db, name), recount(db, name))
  }
})
