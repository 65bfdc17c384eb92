// Auto ids as sequences (docs/architecture.md "Auto ids"): concurrent inserts into an
// auto-id collection never conflict and never share an id, and no id of a committed
// row is issued again: not after deleting the highest rows, not after a restart, not
// after a rename migration. Kill -9: crash-auto-id-kill9.test.ts.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { api, startServer } from './helpers/http-server.js'
import { openDatabase } from './helpers/database.js'

const schema = 'collection events { client: int, seq: int, index (client, seq) }\ncollection log { text: string }\n'
const token = 'auto-id-token-0123456789abcdef'

const ids = async (db: Database, text = 'events | select id') =>
  (await db.tenant('default').query(text)).rows.map((r) => r[0] as number)

t.test('conflict: 6 concurrent writers into one auto-id collection: no conflict, every id distinct', async (t) => {
  const { db } = await openDatabase(t, schema)
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const writers = 6
  const each = 40
  const failures: string[] = []
  await Promise.all(Array.from({ length: writers }, async (_, client) => {
    for (let seq = 0; seq < each; seq += 1) {
      // Single rows, lists of rows and atomic blocks over two auto-id collections.
      const text = seq % 3 === 0 ? 'insert events {client: $c, seq: $s}'
        : seq % 3 === 1 ? 'insert events [{client: $c, seq: $s}]'
          : 'atomic { insert events {client: $c, seq: $s}; insert log {text: "x"} }'
      const res = await call('/api/v1/t/default/query', { json: { query: text, params: { c: client, s: seq } } })
      if (res.status !== 200) failures.push(`${res.status} ${JSON.stringify(res.body)}`)
    }
  }))
  t.same(failures, [], 'every insert succeeded: none lost a race over the id counter')
  const all = await ids(db)
  t.equal(all.length, writers * each)
  t.equal(new Set(all).size, all.length, 'every id distinct')
  t.same((await db.tenant('default').query('events | aggregate n: count() by client')).rows.map((r) => r[1]), Array(writers).fill(each))
})

t.test('ids are never reissued after deleting the highest rows, in this process or after reopening', async (t) => {
  const { db: first, dir, schemaFile } = await openDatabase(t, schema)
  const q = (db: Database, text: string) => db.tenant('default').query(text)
  await q(first, 'insert events [{client: 0, seq: 1}, {client: 0, seq: 2}, {client: 0, seq: 3}, {client: 0, seq: 4}]')
  t.same(await ids(first), [1, 2, 3, 4])
  await q(first, 'events | where id >= 3 | delete')
  await q(first, 'insert events {client: 0, seq: 5}')
  t.same(await ids(first), [1, 2, 5], 'the next id follows the deleted ones')
  await q(first, 'events | where id >= 2 | delete')
  await first.close()

  const second = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => second.close())
  await q(second, 'insert events {client: 0, seq: 6}')
  t.same(await ids(second), [1, 6], 'after reopening, ids continue after every id ever committed')
  await q(second, 'insert events {id: 100, client: 0, seq: 7}')
  await q(second, 'events | where id == 100 | delete')
  await q(second, 'insert events {client: 0, seq: 8}')
  t.same(await ids(second), [1, 6, 101], 'and after an explicit id, even a deleted one')
})

t.test('a rename migration keeps the counter, deleted highest rows included', async (t) => {
  const { db: first, dir, schemaFile } = await openDatabase(t, 'collection notes { text: string }')
  await first.tenant('default').query('insert notes [{text: "a"}, {text: "b"}, {text: "c"}]')
  await first.tenant('default').query('notes | where id == 3 | delete')
  await first.close()
  writeFileSync(schemaFile, 'collection memos was notes { text: string }')
  const second = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => second.close())
  await second.tenant('default').query('insert memos {text: "d"}')
  t.same((await second.tenant('default').query('memos | select id, text')).rows, [[1, 'a'], [2, 'b'], [4, 'd']])
})
