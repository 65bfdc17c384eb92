// Whether a statement writes, as a read token's query is judged (src/query/check/statement-
// writes.ts, docs/api.md "Access"): never "reads" for a statement that commits. Every
// statement of a corpus runs through the real database; each one that committed must
// have been called a write, and each one called a read must commit nothing. The
// classification errs towards writing (an `update` stage not last is a write though the
// checker refuses it), and what the runner refuses anyway is no write.
import t from 'tap'
import { parse } from '../src/lang/parse.js'
import { statementWrites } from '../src/query/index.js'
import type { SchemaIR } from '../src/schema/ir.js'
import { openDatabase } from './helpers/database.js'

const schema = `
collection users { id: int primary, email: string unique, name: string, status: string = "active" }
collection notes { id: int primary, text: string }
query active() { users | where status == "active" }
query purge() { users | where status == "gone" | delete }
query rename($id: int) { users | where id == $id | update {name: "renamed"} }
`

const corpus = [
  'users', 'users | take 2', 'users | where id == 1', 'users | count', 'users | sort name | select name',
  'users | aggregate n: count() by status', 'call active()', 'call active() | take 1', 'explain users | where id == 1',
  'explain insert users {id: 50, email: "e", name: "E"}', 'explain users | delete',
  'atomic { users | count; notes | count }',
  'insert notes {id: 1, text: "a"}', 'upsert notes {id: 1, text: "b"}', 'insert users {id: 9, email: "n@x", name: "N"}',
  'users | where id == 9 | update {name: "M"}', 'users | where id == 9 | delete', 'notes | delete',
  'call purge()', 'call rename(id: 1)', 'call active() | where id == 2 | update {status: "gone"}', 'call purge()',
  'atomic { users | count; insert notes {id: 2, text: "c"} }', 'atomic { notes | where id == 2 | delete }',
]

t.test('auth-statement-writes: no committing statement is ever called a read', async (t) => {
  const { db } = await openDatabase(t, schema)
  const tenant = db.tenant('default')
  await tenant.query('insert users [{id: 1, email: "a@x", name: "A"}, {id: 2, email: "b@x", name: "B"}]')
  let commits = 0
  for (const text of corpus) {
    const statement = parse(text, 'query').statements[0]
    if (statement === undefined) throw new Error(`no statement in ${text}`)
    const writes = statementWrites(statement, db.schema.ir)
    const result = await tenant.query(text)
    if (result.lsn !== undefined) commits += 1
    if (result.lsn !== undefined) t.ok(writes, `${text}: committed, so a write`)
    if (!writes) t.equal(result.lsn, undefined, `${text}: a read commits nothing`)
  }
  t.ok(commits >= 10, `${commits} statements of the corpus committed`)
})

t.test('auth-statement-writes: what the runner refuses anyway is no write; a misplaced write stage is one', async (t) => {
  const ir: SchemaIR = {
    version: 1,
    collections: [],
    queries: [
      { name: 'broken', params: [], body: 'users | wher' },
      { name: 'nested', params: [], body: 'call purge()' },
      { name: 'purge', params: [], body: 'users | delete' },
    ],
    dropped_collections: [],
  }
  const writes = (text: string) => statementWrites(parse(text, 'query').statements[0] as never, ir)
  t.equal(writes('call nobody()'), false, 'a call of an unknown query')
  t.equal(writes('call broken()'), false, 'a body that does not parse')
  t.equal(writes('call nested()'), false, 'a body that is itself a call (the checker refuses it): not followed')
  t.equal(writes('call purge()'), true)
  t.equal(writes('tenant create acme'), false, 'a tenant operation (not allowed on the query route)')
  t.equal(writes('users | delete | take 1'), true, 'a write stage anywhere')
  t.equal(writes('atomic { users | count; users | count }'), false)
})
