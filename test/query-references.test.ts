// References: writes that would dangle fail with constraint_violation; deleting a
// referenced row refuses, cascades or sets null as declared; the schema checks them;
// lazy migration blocks a new reference over dangling data.
import t from 'tap'
import { SchemaError, buildSchemaIR } from '../src/schema/index.js'
import { harness } from './helpers/query-runner.js'

const schema = `
collection users { id: int primary, name: string }
collection posts { id: int primary, author: ref users, title: string = "" }
collection comments {
  id: int primary,
  post: ref posts on delete cascade,
  writer: ref users? on delete set null,
  parent: ref comments? on delete cascade,
}
collection tags { name: string primary }
collection tagged { id: int primary, tag: ref tags, index (tag, id) }
`

async function seeded(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, schema)
  await h.q('insert users [{id: 1, name: "Ada"}, {id: 2, name: "Bo"}]')
  await h.q('insert posts [{id: 10, author: 1}, {id: 11, author: 2}]')
  await h.q('insert comments [{id: 100, post: 10, writer: 2}, {id: 101, post: 10, writer: 1, parent: 100}, {id: 102, post: 11, writer: 2}, {id: 103, post: 10, parent: 101}]')
  return h
}

const rejected = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

t.test('writes that would dangle fail and write nothing', async (t) => {
  const { q } = await seeded(t)
  t.match(await rejected(q('insert posts {id: 12, author: 9}')), { code: 'constraint_violation', message: "field 'author' of 'posts' refers to int 9 of 'users', which does not exist" })
  t.match(await rejected(q('posts | get 10 | update {author: 3}')), { code: 'constraint_violation' })
  t.match(await rejected(q('upsert comments {id: 100, post: 99}')), { code: 'constraint_violation' })
  t.match(await rejected(q('atomic { insert posts {id: 12, author: 1}; insert posts {id: 13, author: 7} }')), { code: 'constraint_violation' })
  t.same((await q('posts | count')).rows, [[2]], 'nothing of the block')
  t.same((await q('atomic { insert users {id: 3, name: "Cy"}; insert posts {id: 12, author: 3} returning id }')).rows, [[12]], 'a row written earlier in the block can be referred to')
  t.same((await q('insert comments {id: 104, post: 12, writer: null}')).rows, [[1]], 'a null reference refers to nothing')
  t.same((await q('insert tagged {id: 1, tag: "x"}').catch((e: { code: string }) => e.code)), 'constraint_violation', 'string keys too')
})

t.test('deletes: refuse, cascade, set null', async (t) => {
  const { q } = await seeded(t)
  t.match(await rejected(q('users | get 1 | delete')), { code: 'constraint_violation', message: "'users' row int 1 is referred to by a row of 'posts' (field 'author' says on delete refuse); delete or change those first" })
  t.same((await q('users | count')).rows, [[2]])
  const deleted = await q('posts | get 10 | delete')
  t.same(deleted.rows, [[1]])
  t.same((await q('comments | sort id | select id')).rows, [[102]], 'its comments, and the replies to them, were deleted by the cascade')
  t.same((await q('posts | get 11 | update {author: 1} returning author')).rows, [[1]])
  t.same((await q('users | get 2 | delete')).rows, [[1]], 'Bo no longer writes posts')
  t.same((await q('comments | select id, writer')).rows, [[102, null]], 'set null')
})

t.test('lookups follow references', async (t) => {
  const { q } = await seeded(t)
  const r = await q('comments | lookup p: posts on post == id | lookup a: users on p.author == id | sort id | select id, author: a.name')
  t.same(r.rows, [[100, 'Ada'], [101, 'Ada'], [102, 'Bo'], [103, 'Ada']])
  t.same(r.plan?.lookups, [{ collection: 'posts', access: 'primary' }, { collection: 'users', access: 'primary' }])
  const back = await q('posts | lookup many cs: comments on id == post | select id, n: len(cs)')
  t.same(back.plan?.lookups, [{ collection: 'comments', access: 'index', index: 'post' }], 'the index every reference field gets')
  t.same(back.rows, [[10, 3], [11, 1]])
})

t.test('the schema checks references', async (t) => {
  const build = (source: string) => {
    try {
      buildSchemaIR([{ name: 's.eel', source }])
      return ''
    } catch (err) {
      return (err as SchemaError).message
    }
  }
  t.match(build('collection a { id: int primary, b: ref bb }  collection b { id: string primary }'), /refers to unknown collection 'bb'/)
  t.match(build('collection a { id: int primary, b: ref b on delete set null }  collection b { id: int primary }'), /not optional, so it cannot be set to null/)
  t.match(build('collection a { id: int primary, n: int on delete cascade }'), /'on delete' belongs to reference fields/)
  t.match(build('collection a { id: int primary, b: [ref b] }  collection b { id: int primary }'), /a list cannot hold references/)
  t.match(build('collection a { id: ref b primary }  collection b { id: int primary }'), /cannot be a reference/)
  const ir = buildSchemaIR([{ name: 's.eel', source: 'collection a { id: int primary, b: ref b, index (b, id) }  collection b { k: string primary }' }])
  const a = ir.collections.find((c) => c.name === 'a')
  t.same(a?.fields.find((f) => f.name === 'b'), { name: 'b', type: { kind: 'string' }, optional: false, default: null, was: null, narrowed: false, ref: { collection: 'b', on_delete: 'refuse' } }, "the type is the target's key")
  t.same(a?.indexes.map((i) => i.name), ['b_id'], 'an index starting with the field serves; no second one')
})
