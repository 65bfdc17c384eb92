// A fork compared with its source at the fork point (docs/api.md, "Tenants"): a diff's
// `from` may name another tenant's snapshot, `tenant@snapshot`; for a fork made from it,
// the rows the fork changed since, in the library and over HTTP, and the errors.
import t from 'tap'
import { api, openExampleDatabase, startServer } from './helpers/http-server.js'

const token = 'diff-fork-token-0123456789'

t.test('a fork against its parent at the fork point', async (t) => {
  const db = await openExampleDatabase(t)
  const parent = db.tenant('default')
  await parent.query('insert users [{id: 1, email: "a@x", name: "A"}, {id: 2, email: "b@x", name: "B"}, {id: 3, email: "c@x", name: "C"}]')
  await db.ops({ op: 'snapshot', name: 'default', target: 'point' })
  await db.ops({ op: 'fork', name: 'default@point', target: 'staging' })
  const fork = db.tenant('staging')
  await fork.query('users | where id == 1 | update {name: "A2"}')
  await fork.query('users | where id == 2 | delete')
  await fork.query('insert users {id: 4, email: "d@x", name: "D"}')
  await parent.query('insert users {id: 9, email: "p@x", name: "only the parent"}')

  const diff = fork.diff({ from: 'default@point', collection: 'users' })
  t.match(diff.from, { name: 'default@point' })
  t.same(diff.collections.users?.added.map((r) => r.id), [4], 'added in the fork (not what the parent did since)')
  t.same(diff.collections.users?.removed.map((r) => r.id), [2])
  t.same(diff.collections.users?.changed.map((c) => [c.key, c.before.name, c.after.name]), [[1, 'A', 'A2']])
  t.same(parent.diff({ from: 'point' }).collections.users?.added.map((r) => r.id), [9], 'the parent\'s own diff is its own')
  t.same(fork.diff({ from: 'default@point', to: 'head', collection: 'orders' }).collections.orders, { added: [], removed: [], changed: [] })

  t.throws(() => fork.diff({ from: 'default@nope' }), { code: 'unknown_snapshot', message: "tenant 'default' has no snapshot 'nope'" })
  t.throws(() => fork.diff({ from: 'nobody@point' }), { code: 'unknown_tenant' })
  t.throws(() => fork.diff({ from: 'Bad@point' }), { code: 'bad_request' })

  const { origin } = await startServer(t, { token, db })
  const call = api(origin, token)
  const res = await call('/api/v1/t/staging/diff?from=default@point&collection=users')
  t.equal(res.status, 200)
  t.same(res.body.collections.users.added.map((r: { id: number }) => r.id), [4])
  t.equal((await call('/api/v1/t/staging/diff?from=default@nope')).status, 404)
})
