// A tenant token that stops opening its tenant ends what it holds open (docs/api.md,
// "Access"): a change tail's WebSocket closes with 4401 within one second of the
// revocation, the expiry or the tenant's deletion, and a long poll answers 401 with none
// of its events. Tails of other tokens, and of the service token, go on.
import { createRequire } from 'node:module'
import t, { type Test } from 'tap'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'
import { hang_guard_ms, pollUntil } from './helpers/poll.js'
import { issue } from './helpers/tenant-tokens.js'

const service = 'tail-revocation-service-token-0123456789'
const schema = 'collection items { id: int primary, v: int }'

/** What the issue asks for: the tail is closed within this of the change that ends the token. */
const close_within_ms = 1000

interface WsClient {
  on(event: 'message', listener: (data: Buffer) => void): WsClient
  on(event: 'open', listener: () => void): WsClient
  on(event: 'close', listener: (code: number, reason: Buffer) => void): WsClient
  on(event: 'error', listener: (err: Error) => void): WsClient
  close(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WsClient

function openTail(url: string) {
  const state = { events: 0, closed: undefined as { code: number; reason: string; at: number } | undefined }
  const socket = new WebSocket(url)
  socket.on('message', () => { state.events += 1 })
  socket.on('close', (code, reason) => { state.closed = { code, reason: reason.toString('utf8'), at: Date.now() } })
  socket.on('error', () => {})
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', resolve)
    socket.on('close', () => reject(new Error('closed before it opened')))
  })
  return { socket, state, opened }
}

async function setup(t: Test) {
  const { db } = await openDatabase(t, schema)
  const server = await startServer(t, { token: service, db })
  const admin = api(server.origin, service)
  await admin('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })
  const ws = server.origin.replace('http', 'ws')
  const tail = (secret: string, tenant = 'acme') => openTail(`${ws}/api/v1/t/${tenant}/tail?after=0&token=${encodeURIComponent(secret)}`)
  const insert = (id: number) => admin('/api/v1/t/acme/query', { json: { query: `insert items {id: ${id}, v: ${id}}` } })
  return { ...server, admin, tail, insert }
}

t.test('auth-tenant-tokens-tail: revoking a token closes its open tails with 4401 within one second, and only its own', async (t) => {
  const { db, admin, tail, insert } = await setup(t)
  const revoked = await issue(db, 'acme', 'read')
  const kept = await issue(db, 'acme', 'read')
  const tails = { revoked: [tail(revoked.token), tail(revoked.token)], kept: tail(kept.token), service: tail(service) }
  for (const open of [...tails.revoked, tails.kept, tails.service]) await open.opened
  await insert(1)
  await pollUntil(() => [...tails.revoked, tails.kept, tails.service].every((x) => x.state.events === 1), 'the first event on every tail')

  const res = await admin(`/api/v1/t/acme/tokens/${revoked.id}`, { method: 'DELETE' })
  const revokedAt = Date.now()
  t.equal(res.status, 200)
  for (const [i, open] of tails.revoked.entries()) {
    await pollUntil(() => open.state.closed !== undefined, 'the revoked token\'s tail to close', { hang_guard_ms })
    t.match(open.state.closed, { code: 4401, reason: 'token revoked or expired' }, `tail ${i}: closed with 4401`)
    const after = (open.state.closed?.at ?? Infinity) - revokedAt
    t.ok(after <= close_within_ms, `tail ${i}: closed ${after} ms after the revocation was answered (at most ${close_within_ms})`)
  }
  await insert(2)
  await pollUntil(() => tails.kept.state.events === 2 && tails.service.state.events === 2, 'the second event on the other tails')
  t.equal(tails.kept.state.closed, undefined, 'another token\'s tail goes on')
  t.equal(tails.service.state.closed, undefined, 'the service token\'s tail goes on')
  tails.kept.socket.close()
  tails.service.socket.close()
})

t.test('auth-tenant-tokens-tail: deleting the tenant, or the token expiring, closes its tails with 4401', async (t) => {
  const { db, admin, tail } = await setup(t)
  const brief = await issue(db, 'acme', 'read', { expires_in_s: 1 })
  const expiring = tail(brief.token)
  await expiring.opened
  const expiresAt = (await admin('/api/v1/t/acme/tokens')).body.tokens.find((x: { id: string }) => x.id === brief.id).expires_at as string
  await pollUntil(() => expiring.state.closed !== undefined, 'the expired token\'s tail to close')
  t.match(expiring.state.closed, { code: 4401 })
  const late = (expiring.state.closed?.at ?? Infinity) - Date.parse(expiresAt)
  t.ok(late <= close_within_ms, `closed ${late} ms after the token expired`)

  await admin('/api/v1/t/default/ops', { json: { op: 'create', name: 'globex' } })
  const doomed = await issue(db, 'globex', 'admin')
  const open = tail(doomed.token, 'globex')
  await open.opened
  t.equal((await admin('/api/v1/t/globex/ops', { json: { op: 'delete' } })).status, 200)
  const deletedAt = Date.now()
  await pollUntil(() => open.state.closed !== undefined, 'the deleted tenant\'s tail to close')
  t.match(open.state.closed, { code: 4401 })
  t.ok((open.state.closed?.at ?? Infinity) - deletedAt <= close_within_ms, 'within one second of the delete')
})

t.test('auth-tenant-tokens-tail: a long poll whose token is revoked answers 401, with none of its events', async (t) => {
  const { db, origin, admin } = await setup(t)
  const issued = await issue(db, 'acme', 'read')
  const head = (await admin('/api/v1/t/acme/tail')).body.head_lsn as number
  const poll = fetch(`${origin}/api/v1/t/acme/tail?after=${head}&wait_ms=30000`, { headers: { authorization: `Bearer ${issued.token}` } })
  // The poll is waiting once the server counts it (metrics: tail subscribers by transport).
  const waiting = async () => /tenantdb_tail_subscribers\{transport="poll"\} 1/.test((await admin('/api/v1/metrics')).body as string)
  const deadline = Date.now() + hang_guard_ms
  while (!(await waiting())) {
    if (Date.now() > deadline) throw new Error('hang guard: the poll never started waiting')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  t.equal((await admin(`/api/v1/t/acme/tokens/${issued.id}`, { method: 'DELETE' })).status, 200)
  const revokedAt = Date.now()
  const res = await poll
  t.equal(res.status, 401)
  t.equal(res.headers.get('www-authenticate'), 'Bearer')
  t.same(await res.json(), { error: 'the token was revoked or has expired', code: 'unauthorized', conflict: false })
  t.ok(Date.now() - revokedAt <= close_within_ms, 'answered within one second of the revocation')
})
