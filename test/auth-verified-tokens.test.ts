// The tenant tokens the server remembers as verified (src/http/verified-tokens.ts,
// docs/operations.md "Tenant tokens"): a known token is answered from the cache (no
// catalog lookup), a catalog commit (the committer's catalogGeneration) empties it, so
// a revoked token fails on the very next identification; an expired entry is never
// served; the cache is bounded. Over a real database; the HTTP behaviour (revocation,
// expiry, deletion on the next request) is auth-tenant-tokens.test.ts's.
import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import { AccessTokens, type TokenGrant } from '../src/database/index.js'
import { Credentials } from '../src/http/auth.js'
import { VerifiedTokens } from '../src/http/verified-tokens.js'
import { verified_tokens_entries_max } from '../src/limits.js'
import { openDatabase } from './helpers/database.js'
import { issue } from './helpers/tenant-tokens.js'

const service = 'verified-tokens-service-token-0123456789'
const schema = 'collection notes { id: int primary, text: string }\n'
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex')

async function setup(t: Test) {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'acme' })
  // The tenant's first statement applies its lazy migration, a commit of its own kind.
  await db.tenant('acme').query('insert notes {id: 0, text: "first"}')
  const tokens = AccessTokens.of(db)
  return { db, tokens }
}

function grantOf(identified: ReturnType<Credentials['identify']>): TokenGrant | null {
  return identified !== null && 'credential' in identified && identified.credential.kind === 'tenant' ? identified.credential.grant : null
}

t.test('verified tokens: the catalog generation moves with every catalog commit, never with a write', async (t) => {
  const { db, tokens } = await setup(t)
  const before = tokens.generation
  await db.tenant('acme').query('insert notes {id: 1, text: "a"}')
  t.equal(tokens.generation, before, 'a write leaves it')
  const issued = await issue(db, 'acme', 'read')
  const afterIssue = tokens.generation
  t.not(afterIssue, before, 'an issue moves it')
  await tokens.revoke('acme', issued.id)
  t.not(tokens.generation, afterIssue, 'a revocation moves it')
  const afterRevoke = tokens.generation
  await db.ops({ op: 'create', name: 'globex' })
  t.not(tokens.generation, afterRevoke, 'a tenant operation moves it')
})

t.test('verified tokens: a known token is served from the cache until the catalog changes', async (t) => {
  const { db, tokens } = await setup(t)
  const verified = new VerifiedTokens()
  const credentials = new Credentials(service, tokens, verified)
  const read = await issue(db, 'acme', 'read')
  const first = grantOf(credentials.identify([read.token]))
  t.match(first, { scope: 'read', tenants: ['acme'] })
  t.equal(verified.size, 1, 'remembered')
  // The catalog answers a new grant object at every lookup: the same object is the cache's.
  t.equal(grantOf(credentials.identify([read.token])), first, 'the second identification made no catalog lookup')
  t.not(tokens.lookup(hashOf(read.token)), first, 'a lookup would have answered another object')
  t.same(credentials.identify([service]), { credential: { kind: 'service' } }, 'the service token is not cached, and still wins')
  t.equal(verified.size, 1)

  await db.tenant('acme').query('insert notes {id: 1, text: "a"}')
  t.equal(grantOf(credentials.identify([read.token])), first, 'a write keeps the entries')

  await tokens.revoke('acme', read.id)
  t.equal(credentials.identify([read.token]), null, 'revoked: refused at the very next identification')
  t.equal(verified.size, 0, 'the catalog commit emptied the cache')

  const write = await issue(db, 'acme', 'write')
  t.match(grantOf(credentials.identify([write.token])), { scope: 'write' })
  await db.ops({ op: 'delete', name: 'acme' })
  t.equal(credentials.identify([write.token]), null, "a deleted tenant's token: refused at once")
})

t.test('verified tokens: an expired entry is never served', async (t) => {
  const { db, tokens } = await setup(t)
  const verified = new VerifiedTokens()
  const credentials = new Credentials(service, tokens, verified)
  const brief = await issue(db, 'acme', 'read', { expires_in_s: 60 })
  const now = Date.now()
  const grant = grantOf(credentials.identify([brief.token], now))
  t.ok(grant !== null && grant.expires_at_ms !== null, 'valid, with its expiry')
  const expires = grant?.expires_at_ms as number
  t.equal(verified.find(hashOf(brief.token), expires - 1), grant, 'served until the last millisecond')
  t.same(credentials.identify([brief.token], expires), { expired: true }, 'at its expiry the catalog answers: expired')
  t.equal(verified.find(hashOf(brief.token), expires - 1), undefined, 'and the entry is gone')
  t.equal(verified.size, 0)
})

t.test('verified tokens: bounded, the oldest going first; only valid tokens are kept', async (t) => {
  const { db, tokens } = await setup(t)
  const verified = new VerifiedTokens(2)
  const credentials = new Credentials(service, tokens, verified)
  const issued = [await issue(db, 'acme', 'read'), await issue(db, 'acme', 'write'), await issue(db, 'acme', 'admin')]
  for (const { token } of issued) t.not(grantOf(credentials.identify([token])), null)
  t.equal(verified.size, 2, 'at most its bound')
  const now = Date.now()
  t.equal(verified.find(hashOf(issued[0]?.token ?? ''), now), undefined, 'the oldest went')
  t.not(verified.find(hashOf(issued[2]?.token ?? ''), now), undefined, 'the newest stays')
  t.equal(credentials.identify(['tdb_not-a-token']), null)
  t.equal(verified.size, 2, 'a wrong token is not kept')

  const unbounded = new VerifiedTokens()
  unbounded.sync(0)
  for (let i = 0; i <= verified_tokens_entries_max; i += 1) {
    unbounded.remember({ hash: i.toString(16).padStart(64, '0'), id: `t${i}`, scope: 'read', tenants: ['acme'], expires_at_ms: null })
  }
  t.equal(unbounded.size, verified_tokens_entries_max, `the default bound is verified_tokens_entries_max (${verified_tokens_entries_max})`)
  unbounded.sync(1)
  t.equal(unbounded.size, 0, 'another generation empties it')
})
