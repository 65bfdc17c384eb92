// The key limit (docs/language.md "Key size"): a primary key or index entry whose
// encoding exceeds key_bytes_max fails with 400 `key_too_large` naming the collection
// or index, the size and the limit, and nothing of the statement or its block is
// written; the largest key that fits is stored and reads back. Expected sizes follow
// the documented rule (string: 1 + UTF-8 bytes + 2; number, timestamp: 9), not the
// encoder under test.
import { join } from 'node:path'
import { readFileSync, writeFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { QueryError } from '../src/query/index.js'
import { key_bytes_max } from '../src/limits.js'
import { package_root } from '../src/package-root.js'
import { api, startServer } from './helpers/http-server.js'
import { openDatabase } from './helpers/database.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'key-limit-token-0123456789abcdef'
const kv = 'collection kv { k: string primary, v: int = 0, blob: string? }\n'

/** Encoded size of a string key component, by the documented rule (ASCII without NUL). */
const stringBytes = (chars: number) => 1 + chars + 2
const numberBytes = 9

async function server(t: Test) {
  const dir = tempDir(t)
  const schemaFile = join(dir, 'schema.eel')
  // The example schema (users.email unique; index (status, created)) plus a string-keyed collection.
  writeFileSync(schemaFile, `${readFileSync(join(package_root, 'examples', 'schema.eel'), 'utf8')}\n${kv}`)
  const db = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  return { db, query: (text: string, params: Record<string, unknown> = {}) => call('/api/v1/t/default/query', { json: { query: text, params } }) }
}

t.test('key_too_large: a primary key one byte over the limit; the largest that fits reads back (HTTP)', async (t) => {
  const { query } = await server(t)
  const fits = 'k'.repeat(key_bytes_max - stringBytes(0))
  t.equal(stringBytes(fits.length), key_bytes_max)
  const ok = await query('insert kv {k: $k, v: 1}', { k: fits })
  t.equal(ok.status, 200, JSON.stringify(ok.body))
  t.same((await query('kv | get $k | select v', { k: fits })).body.rows, [[1]], 'the largest key reads back')
  t.same((await query('kv | where k == $k | count', { k: fits })).body.rows, [[1]])

  const over = `${fits}k`
  const res = await query('insert kv {k: $k}', { k: over })
  t.equal(res.status, 400)
  t.match(res.body, { code: 'key_too_large', conflict: false })
  t.match(res.body.error, new RegExp(`primary key 'k' of a row of 'kv' encodes to ${key_bytes_max + 1} bytes, over the key limit of ${key_bytes_max} bytes`))
  t.same((await query('kv | count')).body.rows, [[1]], 'nothing was written')
  t.same((await query('kv | get $k', { k: over })).body.rows, [], 'a read of a key over the limit finds nothing')
})

t.test('key_too_large: a unique index entry over the limit, in an atomic block (HTTP)', async (t) => {
  const { query } = await server(t)
  // users.email unique: the entry is the email then the int id.
  const fitting = key_bytes_max - numberBytes - stringBytes(0)
  const fits = 'e'.repeat(fitting)
  const ok = await query('insert users {id: 1, email: $e, name: "A"}', { e: fits })
  t.equal(ok.status, 200, JSON.stringify(ok.body))
  t.same((await query('users | where email == $e | select id', { e: fits })).body.rows, [[1]], 'found through the index')
  const block = await query('atomic { insert users {id: 2, email: "b@x", name: "B"}; insert users {id: 3, email: $e, name: "C"} }', { e: `${fits}e` })
  t.equal(block.status, 400)
  t.match(block.body, { code: 'key_too_large', conflict: false })
  t.match(block.body.error, new RegExp(`index 'email' of 'users' .*encodes to ${key_bytes_max + 1} bytes.*limit of ${key_bytes_max} bytes`))
  t.same((await query('users | count')).body.rows, [[1]], 'nothing of the block was written')
  const update = await query('users | get 1 | update {email: $e}', { e: `${fits}ee` })
  t.match(update.body, { code: 'key_too_large' })
  t.same((await query('users | get 1 | select email')).body.rows, [[fits]], 'the update changed nothing')
})

t.test('key_too_large: an indexed field of about 1 MB (HTTP)', async (t) => {
  const { query } = await server(t)
  const res = await query('insert users {id: 1, email: "a@x", name: "A", status: $s}', { s: 's'.repeat(1_000_000) })
  t.equal(res.status, 400)
  t.match(res.body, { code: 'key_too_large', conflict: false, error: /index 'status_created' of 'users'/ })
  t.same((await query('users | count')).body.rows, [[0]])
  // The composite index: status, then the timestamp and the int id.
  const fits = 's'.repeat(key_bytes_max - 2 * numberBytes - stringBytes(0))
  const ok = await query('insert users {id: 2, email: "b@x", name: "B", status: $s}', { s: fits })
  t.equal(ok.status, 200, JSON.stringify(ok.body))
  t.same((await query('users | where status == $s | select id', { s: fits })).body.rows, [[2]])
})

t.test('key_too_large through the embedding API, and a migration that would build such an index is blocked', async (t) => {
  const { db, dir, schemaFile } = await openDatabase(t, `${kv}collection notes { text: string }`)
  const err = await db.tenant('default').query('insert kv {k: $k}', { k: 'é'.repeat(600) }).then(() => null, (e: unknown) => e)
  t.type(err, QueryError)
  // 'é' is 2 bytes of UTF-8: 1 + 1200 + 2.
  t.match(err, { code: 'key_too_large', message: /encodes to 1203 bytes/ })
  await db.tenant('default').query('insert notes [{text: "short"}, {text: $long}]', { long: 'n'.repeat(2000) })
  await db.close()
  writeFileSync(schemaFile, `${kv}collection notes { text: string, index (text) }`)
  const again = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => again.close())
  const blocked = await again.tenant('default').query('notes | count').then(() => null, (e: unknown) => e)
  t.match(blocked, { code: 'migration_blocked', message: /index 'text' cannot be built: the entry of the row with key int 2 encodes to 2012 bytes, over the key limit of 1024 bytes/ })
})

t.test('row_too_large: a row over 1 MiB encoded, by an update that doubles a string (HTTP) or an insert (embedding API)', async (t) => {
  const { db, query } = await server(t)
  const half = 'x'.repeat(600_000)
  t.equal((await query('insert kv {k: "a"}')).status, 200)
  t.equal((await query('insert users {id: 1, email: "a@x", name: $n}', { n: half })).status, 200)
  const grown = await query('users | get 1 | update {name: name + name}')
  t.equal(grown.status, 400)
  t.match(grown.body, { code: 'row_too_large', conflict: false, error: /a row of 'users' encodes to \d+ bytes, over the row limit of 1048576 bytes/ })
  t.same((await query('users | get 1 | select n: len(name)')).body.rows, [[600_000]], 'the row is unchanged')
  // Through the embedding API, into a collection with indexes and into one without
  // (kv: the bulk insert path, which encodes rows without building them).
  for (const text of ['insert users {id: 2, email: "b@x", name: $n}', 'insert kv [{k: "b"}, {k: "c", blob: $n}]']) {
    const big = await db.tenant('default').query(text, { n: 'y'.repeat(1_100_000) }).then(() => null, (e: unknown) => e)
    t.type(big, QueryError, text)
    t.match(big, { code: 'row_too_large' }, text)
  }
  t.same((await query('users | count')).body.rows, [[1]])
  t.same((await query('kv | select k')).body.rows, [['a']], 'nothing of the bulk insert was written')
})
