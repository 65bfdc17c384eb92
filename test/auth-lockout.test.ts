// The failed-authentication throttle as a denial of service (docs/operations.md "The
// token"): a hostile page (preflights, cross-site requests with guessed tokens, no-cors
// GETs) and requests that offer no token never lock a local client out; wrong tokens
// are still throttled, 429 with Retry-After, and never lock out a right one, the
// service token or a tenant token, sent from the same address.
import t from 'tap'
import type { Test } from 'tap'
import { auth_failures_max } from '../src/limits.js'
import { startServer } from './helpers/http-server.js'
import { issue } from './helpers/tenant-tokens.js'

const token = 'lockout-token-0123456789abcdef'
const evil = 'http://evil.example'
const tries = auth_failures_max * 3

async function status(url: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(url, init)
  await res.arrayBuffer()
  return res.status
}

async function rightTokenWorks(t: Test, origin: string, what: string): Promise<void> {
  const res = await fetch(`${origin}/api/v1/health`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 200, `${what}: the right token still works`)
  await res.arrayBuffer()
}

t.test('preflights from any page never count', async (t) => {
  const { origin } = await startServer(t, { token })
  const statuses = new Set<number>()
  for (let i = 0; i < tries; i += 1) {
    statuses.add(await status(`${origin}/api/v1/t/default/query`, { method: 'OPTIONS', headers: { origin: evil, 'access-control-request-method': 'POST' } }))
    statuses.add(await status(`${origin}/api/v1/t/default/query`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } }))
  }
  t.same([...statuses].sort((a, b) => a - b), [204, 403], 'hostile preflights are 403, allowed ones 204')
  await rightTokenWorks(t, origin, `${tries * 2} preflights`)
})

t.test('a hostile page guessing tokens never reaches auth', async (t) => {
  const { origin } = await startServer(t, { token })
  for (let i = 0; i < tries; i += 1) {
    // A fetch() from the page: it carries its Origin.
    t.equal(await status(`${origin}/api/v1/health`, { headers: { origin: evil, authorization: `Bearer guess-${i}` } }), 403)
    // An <img src> or <script src> GET: no Origin, but Fetch Metadata says cross-site.
    t.equal(await status(`${origin}/api/v1/health?token=guess-${i}`, { headers: { 'sec-fetch-site': 'cross-site' } }), 403)
  }
  await rightTokenWorks(t, origin, `${tries * 2} hostile guesses`)
})

t.test('requests that offer no token get 401 and do not count', async (t) => {
  const { origin } = await startServer(t, { token })
  const statuses = new Set<number>()
  for (let i = 0; i < tries; i += 1) {
    statuses.add(await status(`${origin}/api/v1/health`))
    statuses.add(await status(`${origin}/api/v1/health?token=`))
    statuses.add(await status(`${origin}/api/v1/nowhere`, { method: 'POST', body: 'x' }))
  }
  t.same([...statuses], [401], 'every one is 401, none 429')
  await rightTokenWorks(t, origin, `${tries * 3} requests without a token`)
})

t.test('wrong tokens are still throttled, with Retry-After', async (t) => {
  const { origin } = await startServer(t, { token })
  for (let i = 0; i < auth_failures_max; i += 1) {
    t.equal(await status(`${origin}/api/v1/health`, { headers: { 'x-service-token': `wrong-${i}` } }), 401, `wrong token ${i + 1}`)
  }
  const blocked = await fetch(`${origin}/api/v1/health`, { headers: { 'x-service-token': 'wrong-again' } })
  t.equal(blocked.status, 429, `the failure after ${auth_failures_max} is refused`)
  t.ok(Number(blocked.headers.get('retry-after')) >= 1, 'Retry-After')
  t.same(await blocked.json(), { error: 'too many failed authentications from this address; retry later', code: 'rate_limited', conflict: false })
})

t.test('wrong tokens never lock out a right one from the same address', async (t) => {
  const { origin, db } = await startServer(t, { token })
  const tenant = (await issue(db, 'default', 'read')).token
  const wrong = (i: number) => status(`${origin}/api/v1/t/default/schema`, { headers: { authorization: `Bearer tdb_wrong-${i}` } })
  for (let i = 0; i < auth_failures_max; i += 1) t.equal(await wrong(i), 401, `wrong token ${i + 1}`)
  t.equal(await wrong(-1), 429, 'the address is blocked for wrong tokens')
  for (let round = 0; round < 3; round += 1) {
    // The service token in each place it is accepted, and a tenant token.
    t.equal(await status(`${origin}/api/v1/health/detail`, { headers: { authorization: `Bearer ${token}` } }), 200, `round ${round}: the service token (Bearer)`)
    t.equal(await status(`${origin}/api/v1/health/detail`, { headers: { 'x-service-token': token } }), 200, `round ${round}: the service token (X-Service-Token)`)
    t.equal(await status(`${origin}/api/v1/health/detail?token=${token}`), 200, `round ${round}: the service token (?token=)`)
    t.equal(await status(`${origin}/api/v1/t/default/schema`, { headers: { authorization: `Bearer ${tenant}` } }), 200, `round ${round}: a tenant token`)
    // A right token beside a wrong one is the credential (the first valid one).
    t.equal(await status(`${origin}/api/v1/t/default/schema?token=tdb_wrong`, { headers: { authorization: `Bearer ${tenant}` } }), 200, `round ${round}: a right token beside a wrong one`)
    const again = await fetch(`${origin}/api/v1/t/default/schema`, { headers: { authorization: `Bearer tdb_wrong-again-${round}` } })
    t.equal(again.status, 429, `round ${round}: wrong tokens are still refused with 429`)
    t.ok(Number(again.headers.get('retry-after')) >= 1, `round ${round}: Retry-After`)
    await again.arrayBuffer()
  }
})
