// Lookups: single, many and inner forms; the access each side takes (plan hint per
// side) and the rows it examines; the hash lookup's memory bound; atomic blocks and
// snapshot pins.
import t from 'tap'
import { EelError, formatDiagnostic } from '../src/lang/diagnostic.js'
import { openDatabase } from './helpers/database.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection users { id: int primary, name: string, email: string? unique, team: string? }
collection posts { id: int primary, author: int?, title: string, index (author, title) }
collection comments { id: int primary, post: int, body: string, writer: string?, index (post) }
`

async function seeded(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, schema)
  await h.q('insert users [{id: 1, name: "Ada", email: "ada@x", team: "core"}, {id: 2, name: "Bo", team: "core"}, {id: 3, name: "Cy"}]')
  await h.q('insert posts [{id: 10, author: 1, title: "b"}, {id: 11, author: 2, title: "a"}, {id: 12, author: 1, title: "a"}, {id: 13, author: 9, title: "x"}, {id: 14, title: "y"}]')
  await h.q('insert comments [{id: 100, post: 10, body: "c1", writer: "ada@x"}, {id: 101, post: 12, body: "c2"}, {id: 102, post: 10, body: "c3", writer: "nobody"}]')
  return h
}

t.test('single lookup by the primary key: a point read per row', async (t) => {
  const { q } = await seeded(t)
  const r = await q('posts | lookup author: users on author == id | select id, name: author.name')
  t.same(r.rows, [[10, 'Ada'], [11, 'Bo'], [12, 'Ada'], [13, null], [14, null]], 'no match (or a null key) gives null')
  t.same(r.plan, { collection: 'posts', access: 'scan', lookups: [{ collection: 'users', access: 'primary' }] })
  t.equal(r.stats.rows_examined, 5 + 3, '5 posts, 3 point reads that found a user (a dangling and a null key read none)')
  const whole = await q('posts | get 11 | lookup who: users on author == id')
  t.same(whole.columns, ['id', 'author', 'title', 'who'])
  t.same(whole.rows, [[11, 2, 'a', { id: 2, name: 'Bo', email: null, team: 'core' }]])
})

t.test('inner drops rows without a match', async (t) => {
  const { q } = await seeded(t)
  const r = await q('posts | lookup inner author: users on author == id | sort author.name, id | select id')
  t.same(r.rows, [[10], [12], [11]])
})

t.test('many: a list of the matches in primary-key order, through an index', async (t) => {
  const { q } = await seeded(t)
  const r = await q('posts | where id <= 12 | lookup many notes: comments on id == post | select id, n: len(notes), notes')
  t.same(r.rows.map((row) => [row[0], row[1]]), [[10, 2], [11, 0], [12, 1]])
  t.same((r.rows[0]?.[2] as Array<Record<string, unknown>>).map((c) => c.id), [100, 102])
  t.same(r.plan?.lookups, [{ collection: 'comments', access: 'index', index: 'post' }])
  t.equal(r.stats.rows_examined, 3 + 3, '3 posts and the 3 comments the index named')
  const inner = await q('posts | lookup inner many notes: comments on id == post | select id')
  t.same(inner.rows, [[10], [12]], 'inner many drops rows with an empty list')
  const users = await q('users | lookup many wrote: posts on id == author | select name, titles: len(wrote)')
  t.same(users.rows, [['Ada', 2], ['Bo', 1], ['Cy', 0]])
  t.same(users.plan?.lookups, [{ collection: 'posts', access: 'index', index: 'author_title' }], 'an index whose first field fits')
  const first = await q('users | get 1 | lookup post: posts on id == author | select t: post.title, p: post.id')
  t.same(first.rows, [['b', 10]], 'a single lookup takes the first match in primary-key order, not index order')
})

t.test('a lookup on an unindexed field builds a hash table once', async (t) => {
  const { q } = await seeded(t)
  const r = await q('comments | lookup u: users on writer == email | lookup inner v: users on u.team == team | select id, u: u.name, v: v.name')
  t.same(r.rows, [[100, 'Ada', 'Ada']], 'u.team "core" matches Ada (id 1) first')
  t.same(r.plan?.lookups, [{ collection: 'users', access: 'index', index: 'email' }, { collection: 'users', access: 'hash' }])
  t.equal(r.stats.rows_examined, 3 + 1 + 3, '3 comments, one read through the unique index, the users once for the hash table')
  t.same((await q('comments | lookup x: users on body == name | count')).rows, [[3]])
})

t.test('lookups run inside atomic blocks and see their earlier writes', async (t) => {
  const { q } = await seeded(t)
  const r = await q('atomic { insert users {id: 9, name: "Nine"}; posts | get 13 | lookup a: users on author == id | select n: a.name }')
  t.same(r.rows, [['Nine']])
})

t.test('lookups read the pinned snapshot', async (t) => {
  const { db } = await openDatabase(t, schema)
  const main = db.tenant('default')
  await main.query('insert users {id: 1, name: "Old"}')
  await main.query('insert posts {id: 10, author: 1, title: "t"}')
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  await main.query('users | get 1 | update {name: "New"}')
  const text = 'posts | lookup a: users on author == id | select n: a.name'
  t.same((await main.query(text)).rows, [['New']])
  t.same((await main.query(text, {}, { snapshot: 'before' })).rows, [['Old']])
})

t.test('the checker knows the looked-up rows', async (t) => {
  const { q } = await seeded(t)
  const cases: Array<[string, string]> = [
    ['posts | lookup a: user on author == id', "1:19 unknown collection 'user'; did you mean 'users'?"],
    ['posts | lookup a: users on author == idd', "1:38 unknown field 'idd' in 'users'; did you mean 'id'?"],
    ['posts | lookup a: users on title == id', "1:28 cannot match string with 'users.id', which is int"],
    ['posts | lookup a: users on author > id', '1:28 lookup … on takes an equality: an expression of the incoming row == a field of the looked-up collection (as in lookup author: users on author == id)'],
    ['posts | lookup a: users on author == id | select x: a.nme', "1:53 unknown field 'nme' in 'a'; did you mean 'name'?"],
    ['posts | lookup a: users on author == id | delete', '1:9 only where, get, sort, skip and take may come before delete'],
  ]
  for (const [text, expected] of cases) {
    const err = await q(text).then(() => undefined, (e: unknown) => e)
    t.type(err, EelError, text)
    t.equal(formatDiagnostic((err as EelError).diagnostic), expected, text)
  }
})

t.test('a hash lookup past its memory bound fails with lookup_too_large, naming the index that avoids it', async (t) => {
  const { runner } = await seeded(t)
  const text = 'comments | lookup u: users on writer == name | count'
  t.same((await runner.run('default', text, {}, { lookup_hash_bytes_max: 1000 })).rows, [[3]], 'three users fit in 1000 bytes')
  const err = await runner.run('default', text, {}, { lookup_hash_bytes_max: 40 }).catch((e: unknown) => e)
  t.match(err, { code: 'lookup_too_large', message: /lookup on 'users.name' would hold more than 40 bytes of rows in memory; declare index \(name\) in 'users'/ })
})

t.test('a lookup on a timestamp field matches ISO text by instant', async (t) => {
  const { q } = await harness(t, `
    collection days { at: timestamp primary, label: string }
    collection notes { id: int primary, day: string }
  `)
  await q('insert days [{at: "2024-01-01T00:00:00Z", label: "new year"}]')
  await q('insert notes [{id: 1, day: "2024-01-01T01:00:00+01:00"}, {id: 2, day: "not a date"}]')
  t.same((await q('notes | lookup d: days on day == at | select id, l: d.label')).rows, [[1, 'new year'], [2, null]])
})
