// Tenant tokens over real HTTP (docs/api.md, "Access"; docs/operations.md, "Tenant
// tokens"): issuing, listing and revoking with the service token; what each scope may
// do, a writing query refused to a read token before anything is written; an admin
// token's operations, a fork it then administers, tokens a fork does not copy; a
// deleted tenant's tokens revoked, also when a tenant of the same name comes back;
// expiry; the throttle; only the hash in the catalog; last uses written lazily and
// never by a read.
import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import { AccessTokens } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'
import { pollUntil } from './helpers/poll.js'
import { issue } from './helpers/tenant-tokens.js'

const service = 'tenant-tokens-service-token-0123456789'

const schema = `
collection users { id: int primary, email: string unique, name: string, status: string = "active" }
collection notes { id: int primary, text: string }
query active() { users | where status == "active" }
query purge_inactive() { users | where status == "inactive" | delete }
`

async function setup(t: Test) {
  const { db, dir } = await openDatabase(t, schema)
  const server = await startServer(t, { token: service, db })
  const admin = api(server.origin, service)
  await admin('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })
  await admin('/api/v1/t/default/ops', { json: { op: 'create', name: 'globex' } })
  await admin('/api/v1/t/acme/query', { json: { query: 'insert users [{id: 1, email: "a@acme", name: "Ann"}, {id: 2, email: "b@acme", name: "Bob", status: "inactive"}]' } })
  await admin('/api/v1/t/globex/query', { json: { query: 'insert users {id: 1, email: "g@globex", name: "Gus"}' } })
  const issueHttp = async (tenant: string, body: unknown) => {
    const res = await admin(`/api/v1/t/${tenant}/tokens`, { json: body })
    if (res.status !== 201) throw new Error(`issue: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body as { token: string; id: string; tenant: string; scope: string; name: string | null; created_at: string; expires_at: string | null }
  }
  return { dir, ...server, admin, issueHttp }
}

t.test('auth-tenant-tokens: issued once, listed without the secret, only the hash in the catalog', async (t) => {
  const { db, admin, issueHttp } = await setup(t)
  const issued = await issueHttp('acme', { scope: 'write', name: 'acme web', expires_in_s: 3600 })
  t.match(issued.token, /^tdb_[A-Za-z0-9_-]{43}$/, 'tdb_ and 32 random bytes, base64url')
  t.match(issued, { tenant: 'acme', scope: 'write', name: 'acme web' })
  t.ok(Date.parse(issued.expires_at ?? '') - Date.parse(issued.created_at) === 3_600_000, 'expires an hour after it was issued')

  const listed = await admin('/api/v1/t/acme/tokens')
  t.equal(listed.status, 200)
  t.same(listed.body.tokens.map((x: { id: string }) => x.id), [issued.id])
  t.same(Object.keys(listed.body.tokens[0]).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scope', 'tenant'])
  const hash = createHash('sha256').update(issued.token).digest('hex')
  t.notOk(JSON.stringify(listed.body).includes(issued.token) || JSON.stringify(listed.body).includes(hash), 'the listing holds neither the token nor its hash')
  t.same((await admin('/api/v1/t/globex/tokens')).body.tokens, [], "another tenant's listing does not show it")

  // The catalog: every entry, key and value, holds the hash and never the token.
  const catalog = [...internalsOf(db).committer.head().scan('catalog', {})].map(([k, v]) => `${k.toString('utf8')} ${v.toString('utf8')}`)
  t.ok(catalog.some((entry) => entry.startsWith(`token/${hash} `)), 'the record is keyed by the SHA-256 of the token')
  t.notOk(catalog.some((entry) => entry.includes(issued.token) || entry.includes(issued.token.slice(4))), 'no catalog entry holds the token')

  const bad: Array<[unknown, RegExp]> = [
    [{ scope: 'root' }, /"scope" in the body must be one of read, write, admin, got "root"/],
    [{}, /needs "scope"/],
    [{ scope: 'read', expires_in_s: 0 }, /"expires_in_s" in the body must be at least 1, got 0/],
    [{ scope: 'read', expires_in_s: 1.5 }, /"expires_in_s" in the body must be an integer/],
    [{ scope: 'read', name: '' }, /"name" in the body may not be empty/],
    [{ scope: 'read', name: 'x'.repeat(101) }, /"name" in the body must NOT have more than 100 characters/],
    [{ scope: 'read', expires_in: 60 }, /must NOT have additional properties/],
    ['read', /the body must be a JSON object, got "read"/],
  ]
  for (const [body, message] of bad) {
    const res = await admin('/api/v1/t/acme/tokens', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
    t.equal(res.status, 400, JSON.stringify(body))
    t.match(res.body, { code: 'bad_request', error: message }, JSON.stringify(body))
  }
  t.match(await admin('/api/v1/t/nobody/tokens', { json: { scope: 'read' } }), { status: 404, body: { code: 'unknown_tenant' } })
  t.match(await admin('/api/v1/t/nobody/tokens'), { status: 404, body: { code: 'unknown_tenant' } })
  t.match(await admin('/api/v1/t/acme/tokens/0123456789abcdef', { method: 'DELETE' }), { status: 404, body: { code: 'unknown_token', error: "tenant 'acme' has no token '0123456789abcdef'" } })
  t.match(await admin(`/api/v1/t/globex/tokens/${issued.id}`, { method: 'DELETE' }), { status: 404, body: { code: 'unknown_token' } }, "a token is revoked through a tenant it opens, not another's")
  t.equal((await admin('/api/v1/t/acme/tokens')).body.tokens.length, 1, 'nothing was revoked by the refusals')

  // The embedding API's check refuses what the route's schema refuses, in its own words.
  await t.rejects(AccessTokens.of(db).issue('acme', { scope: 'owner' as never }), { code: 'bad_request' })
  await t.rejects(AccessTokens.of(db).issue('acme', 'read' as never), { code: 'bad_request' })
  await t.rejects(AccessTokens.of(db).issue('acme', { scope: 'read', name: 7 as never }), { code: 'bad_request' })
  await t.rejects(AccessTokens.of(db).issue('acme', { scope: 'read', expires_in_s: -1 }), { code: 'bad_request' })
})

t.test('auth-tenant-tokens: read, write and admin scopes; a writing query refused to a read token, nothing written', async (t) => {
  const { origin, admin, issueHttp } = await setup(t)
  const read = api(origin, (await issueHttp('acme', { scope: 'read' })).token)
  const write = api(origin, (await issueHttp('acme', { scope: 'write' })).token)
  const count = async () => (await admin('/api/v1/t/acme/query', { json: { query: 'users | count' } })).body.rows[0][0] as number

  for (const query of ['users | take 5', 'users | where id == 1', 'call active()', 'explain insert users {id: 9, email: "x", name: "X"}', 'explain users | delete', 'atomic { users | count; notes | count }']) {
    const res = await read('/api/v1/t/acme/query', { json: { query } })
    t.equal(res.status, 200, `read token reads: ${query} ${res.status === 200 ? '' : JSON.stringify(res.body)}`)
  }
  const writes = [
    'insert users {id: 3, email: "c@acme", name: "Cy"}',
    'upsert users {id: 1, email: "a@acme", name: "Ann B"}',
    'users | where id == 1 | update {name: "Annie"}',
    'users | where id == 2 | delete',
    'call purge_inactive()',
    'atomic { users | count; insert notes {id: 1, text: "n"} }',
  ]
  const before = await count()
  for (const query of writes) {
    const res = await read('/api/v1/t/acme/query', { json: { query } })
    t.equal(res.status, 403, `read token: ${query}`)
    t.same(res.body, { error: 'this statement writes, and the token is a read token: it needs a write token (or admin)', code: 'forbidden', conflict: false }, `the query route's body: ${query}`)
  }
  t.equal(await count(), before, 'nothing was written')
  t.same((await admin('/api/v1/t/acme/query', { json: { query: 'notes | count' } })).body.rows, [[0]])
  // A query that does not parse is refused as it would be for anyone.
  t.match(await read('/api/v1/t/acme/query', { json: { query: 'users | wher' } }), { status: 400, body: { code: 'syntax_error' } })

  for (const query of writes) {
    const res = await write('/api/v1/t/acme/query', { json: { query } })
    t.equal(res.status, 200, `write token writes: ${query}`)
  }
  t.equal(await count(), before, 'one insert, one delete (call purge_inactive found none left)')
  t.match(await write('/api/v1/t/acme/ops', { json: { op: 'snapshot', name: 'acme', target: 's1' } }), { status: 403, body: { code: 'forbidden' } })
  t.match(await read('/api/v1/t/acme/tokens'), { status: 403, body: { code: 'forbidden' } }, 'a tenant token never manages tokens')
  for (const path of ['/api/v1/tenants', '/api/v1/stats', '/api/v1/health/detail', '/api/v1/metrics', '/api/v1/backup']) {
    t.match(await write(path), { status: 403, body: { code: 'forbidden', error: 'this route is server-wide: it needs the service token' } }, path)
  }
  t.match(await read('/api/v1/access'), { status: 200, body: { credential: 'tenant', scope: 'read', tenants: ['acme'], expires_at: null } })
  t.same((await admin('/api/v1/access')).body, { credential: 'service' })
  for (const path of ['/api/v1/t/globex/query', '/api/v1/t/nobody/query']) {
    const res = await write(path, { json: { query: 'users' } })
    t.same({ status: res.status, body: res.body }, { status: 404, body: { error: `no tenant named '${path.split('/')[4]}'`, code: 'unknown_tenant', conflict: false } }, `${path}: as an unknown tenant, whether it exists or not`)
  }
})

t.test('auth-tenant-tokens: an admin token runs its tenants\' operations, forks into a tenant it then administers', async (t) => {
  const { origin, admin, issueHttp } = await setup(t)
  const adminToken = await issueHttp('acme', { scope: 'admin' })
  const acmeAdmin = api(origin, adminToken.token)
  const acmeRead = api(origin, (await issueHttp('acme', { scope: 'read' })).token)
  const ops = (client: typeof acmeAdmin, path: string, body: unknown) => client(`/api/v1/t/${path}/ops`, { json: body })

  t.match(await ops(acmeAdmin, 'acme', { op: 'snapshot', target: 's1' }), { status: 200, body: { ok: true } })
  t.match(await ops(acmeAdmin, 'acme', { op: 'suspend' }), { status: 200 })
  t.match(await ops(acmeAdmin, 'acme', { op: 'resume' }), { status: 200 })
  t.match(await ops(acmeAdmin, 'acme', { op: 'compact' }), { status: 200 })
  t.match(await ops(acmeAdmin, 'acme', { op: 'create', name: 'newco' }), { status: 403, body: { code: 'forbidden' } })
  t.match(await ops(acmeAdmin, 'acme', { op: 'delete', name: 'acme@s1' }), { status: 403, body: { code: 'forbidden' } })
  t.match(await ops(acmeAdmin, 'acme', { op: 'delete' }), { status: 403, body: { code: 'forbidden' } })
  t.same((await acmeAdmin('/api/v1/t/acme/tokens')).body, { error: 'this needs the service token; the token is an admin token', code: 'forbidden', conflict: false }, 'the refusal names the scope with its article')
  t.same((await acmeRead('/api/v1/t/acme/ops', { json: { op: 'snapshot', target: 'x' } })).body, { error: 'this needs an admin token; the token is a read token', code: 'forbidden', conflict: false })
  for (const body of [{ op: 'suspend', name: 'globex' }, { op: 'snapshot', name: 'globex', target: 'x' }, { op: 'fork', name: 'globex', target: 'mine' }, { op: 'fork', name: 'globex@s', target: 'mine' }]) {
    const res = await ops(acmeAdmin, 'acme', body)
    t.same({ status: res.status, body: res.body }, { status: 404, body: { error: "no tenant named 'globex'", code: 'unknown_tenant', conflict: false } }, `${JSON.stringify(body)}: another tenant named in the body is unknown`)
  }
  t.equal((await admin('/api/v1/t/globex/snapshots')).body.snapshots.length, 0, 'nothing happened to globex')
  t.match(await ops(acmeAdmin, 'acme', { op: 'fork', name: 'acme@s1', target: 'acme-test' }), { status: 200, body: { message: 'forked acme@s1 into acme-test' } })

  t.match(await acmeAdmin('/api/v1/access'), { body: { tenants: ['acme', 'acme-test'] } }, 'the forking token administers the fork')
  t.match(await acmeAdmin('/api/v1/t/acme-test/query', { json: { query: 'insert notes {id: 1, text: "fork"}' } }), { status: 200 })
  t.match(await ops(acmeAdmin, 'acme-test', { op: 'snapshot', target: 'f1' }), { status: 200 })
  t.match(await acmeRead('/api/v1/t/acme-test/query', { json: { query: 'users' } }), { status: 404, body: { code: 'unknown_tenant' } }, 'a fork copies no token: acme\'s read token does not open it')
  const forkTokens = (await admin('/api/v1/t/acme-test/tokens')).body.tokens
  t.same(forkTokens.map((x: { id: string; tenant: string }) => [x.id, x.tenant]), [[adminToken.id, 'acme']], 'the fork lists only the admin token that made it')

  // Deleting the fork takes it out of the token, which keeps its own tenant.
  t.match(await admin('/api/v1/t/acme-test/ops', { json: { op: 'delete' } }), { status: 200 })
  t.match(await acmeAdmin('/api/v1/access'), { body: { tenants: ['acme'] } })
  await admin('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme-test' } })
  t.match(await acmeAdmin('/api/v1/t/acme-test/schema'), { status: 404 }, 'a new tenant of the fork\'s name is not opened by it')
  t.match(await acmeAdmin('/api/v1/t/acme/schema'), { status: 200 })
})

t.test('auth-tenant-tokens: revocation, a deleted tenant and expiry take effect on the next request', async (t) => {
  const { origin, admin, issueHttp } = await setup(t)
  const first = await issueHttp('acme', { scope: 'read' })
  const firstClient = api(origin, first.token)
  t.equal((await firstClient('/api/v1/t/acme/schema')).status, 200)
  t.match(await admin(`/api/v1/t/acme/tokens/${first.id}`, { method: 'DELETE' }), { status: 200, body: { ok: true, message: `revoked token ${first.id} of acme` } })
  t.match(await firstClient('/api/v1/t/acme/schema'), { status: 401, body: { code: 'unauthorized', error: 'missing or invalid token' } })
  t.match(await admin(`/api/v1/t/acme/tokens/${first.id}`, { method: 'DELETE' }), { status: 404, body: { code: 'unknown_token' } }, 'gone')

  const globex = await issueHttp('globex', { scope: 'write' })
  const globexClient = api(origin, globex.token)
  t.equal((await globexClient('/api/v1/t/globex/schema')).status, 200)
  t.match(await admin('/api/v1/t/globex/ops', { json: { op: 'delete' } }), { status: 200 })
  t.equal((await globexClient('/api/v1/t/globex/schema')).status, 401, 'a deleted tenant\'s tokens are revoked')
  await admin('/api/v1/t/default/ops', { json: { op: 'create', name: 'globex' } })
  t.equal((await globexClient('/api/v1/t/globex/schema')).status, 401, 'and stay revoked when a tenant of the same name comes back')
  t.same((await admin('/api/v1/t/globex/tokens')).body.tokens, [])

  const brief = await issueHttp('acme', { scope: 'read', expires_in_s: 1 })
  const briefClient = api(origin, brief.token)
  t.equal((await briefClient('/api/v1/t/acme/schema')).status, 200, 'valid until it expires')
  await pollUntil(() => Date.now() >= Date.parse(brief.expires_at ?? ''), 'the token\'s expiry')
  t.match(await briefClient('/api/v1/t/acme/schema'), { status: 401, body: { code: 'unauthorized', error: 'the token has expired' } })
  t.match((await admin('/api/v1/t/acme/tokens')).body.tokens, [{ id: brief.id }], 'an expired token is listed until revoked')
})

t.test('auth-tenant-tokens: an expired token is no guess, a revoked one is: the throttle counts only the latter', async (t) => {
  const { db, origin } = await setup(t)
  const expired = await issue(db, 'acme', 'read', { expires_in_s: 5, now: new Date(Date.now() - 60_000) })
  const revoked = await issue(db, 'acme', 'read')
  await AccessTokens.of(db).revoke('acme', revoked.id)
  for (let i = 0; i < 30; i += 1) t.equal((await api(origin, expired.token)('/api/v1/health')).status, 401, `expired ${i}`)
  const statuses: number[] = []
  for (let i = 0; i < 21; i += 1) statuses.push((await api(origin, revoked.token)('/api/v1/health')).status)
  t.same(statuses, [...Array(20).fill(401), 429], 'the 21st revoked attempt within the window is refused')
  t.match(await api(origin, expired.token)('/api/v1/health'), { status: 401, body: { error: 'the token has expired' } }, 'an expired token on the blocked address: 401, not 429')
})

t.test('auth-tenant-tokens: uses are kept in memory, written lazily, never a commit per read', async (t) => {
  const { db, origin, app, issueHttp } = await setup(t)
  const issued = await issueHttp('acme', { scope: 'read' })
  const client = api(origin, issued.token)
  const lsn = () => internalsOf(db).engine.stats().current_lsn
  const before = lsn()
  for (let i = 0; i < 20; i += 1) t.equal((await client('/api/v1/t/acme/query', { json: { query: 'users | take 1' } })).status, 200)
  t.equal(lsn(), before, 'twenty reads with a tenant token commit nothing')
  const listing = () => AccessTokens.of(db).list('acme').find((x) => x.id === issued.id)
  t.ok(listing()?.last_used_at !== null, 'the listing shows the use held in memory')
  const stored = () => internalsOf(db).committer.head().get('catalog', Buffer.from(`token-used/${createHash('sha256').update(issued.token).digest('hex')}`))
  t.equal(stored(), null, 'not written yet')
  await app.close()
  t.ok(stored() !== null, 'written when the server closed')
  t.equal(lsn(), before + 1, 'in one commit')
  t.equal(listing()?.last_used_at, stored()?.toString('utf8'), 'the listing reads the stored use')
})

t.test('auth-tenant-tokens: a revocation that loses a race with a last-use write still wins', async (t) => {
  const { db } = await setup(t)
  const tokens = AccessTokens.of(db)
  const issued = await issue(db, 'acme', 'read')
  const hash = createHash('sha256').update(issued.token).digest('hex')
  tokens.used(hash)
  // The write of the use and the revocation in flight together: the revocation is not refused.
  await Promise.all([tokens.flushLastUsed(), tokens.revoke('acme', issued.id)])
  t.same(tokens.lookup(hash), { found: 'none' })
  const head = internalsOf(db).committer.head()
  t.equal(head.get('catalog', Buffer.from(`token-used/${hash}`)), null, 'no last use outlives its token')
  t.same(tokens.list('acme'), [])
})

t.test('auth-tenant-tokens (conflict): a token issued while its tenant is deleted never outlives it', async (t) => {
  const { db } = await setup(t)
  const tokens = AccessTokens.of(db)
  const outcomes = new Map<string, number>()
  for (let round = 0; round < 30; round += 1) {
    const name = `racer${round}`
    await db.ops({ op: 'create', name })
    // Either may reach its commit first: both read the same version.
    const [issued, deleted] = round % 2 === 0
      ? await Promise.allSettled([tokens.issue(name, { scope: 'read' }), db.ops({ op: 'delete', name })])
      : await Promise.allSettled([db.ops({ op: 'delete', name }), tokens.issue(name, { scope: 'read' })]).then(([d, i]) => [i, d] as const)
    const key = `${issued.status}/${deleted.status}`
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
    for (const settled of [issued, deleted]) {
      if (settled.status === 'rejected') t.match(settled.reason, { code: settled === issued && deleted.status === 'fulfilled' ? /^(conflict|unknown_tenant)$/ : 'conflict' }, `${name}: the loser fails with a conflict`)
    }
    if (deleted.status === 'fulfilled' && issued.status === 'fulfilled') {
      t.same(tokens.lookup(createHash('sha256').update(issued.value.token).digest('hex')), { found: 'none' }, `${name}: issued first, then revoked by the delete`)
    }
    const left = [...internalsOf(db).committer.head().scan('catalog', { lower: Buffer.from(`token-of/${name}/`), upper: Buffer.from(`token-of/${name}0`) })]
    if (deleted.status === 'fulfilled') t.same(left, [], `${name}: no token entry outlives the tenant`)
  }
  t.comment(`issue/delete outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`)
  t.same([...outcomes.keys()].sort(), ['fulfilled/rejected', 'rejected/fulfilled'], 'each won some races, and never both')
})

t.test('auth-tenant-tokens: a tenant holds at most 1000 tokens', async (t) => {
  const { db, admin } = await setup(t)
  const tokens = AccessTokens.of(db)
  for (let i = 0; i < 1000; i += 1) await tokens.issue('globex', { scope: 'read' })
  const refused = await admin('/api/v1/t/globex/tokens', { json: { scope: 'read' } })
  t.match(refused, { status: 400, body: { code: 'bad_request', error: "tenant 'globex' holds 1000 tokens, the most it may; revoke some first" } })
  const listed = await admin('/api/v1/t/globex/tokens')
  t.equal(listed.body.tokens.length, 1000, 'the listing holds them all')
  await tokens.revoke('globex', listed.body.tokens[0].id)
  t.equal((await admin('/api/v1/t/globex/tokens', { json: { scope: 'read' } })).status, 201, 'one revoked, one more may be issued')
})
