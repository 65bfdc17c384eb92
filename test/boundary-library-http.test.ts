// Database and Tenant are the only boundary: every rule about tenants lives below the
// HTTP layer, so the embedding API and a real HTTP server answer a request the same
// way (the same error code and sentence; HTTP adds the status). Breaks when a route
// keeps a rule of its own, or the library forgets one: a suspended tenant's tail, diff,
// collections, compaction and queries; an unknown collection on the tail and the diff;
// an empty collection; a long poll over its limit; unknown and malformed tenant operations.
import { createRequire } from 'node:module'
import t from 'tap'
import type { Test } from 'tap'
import type { Database } from '../src/database/index.js'
import { openDatabase } from './helpers/database.js'
import { api, startServer, type ApiResponse } from './helpers/http-server.js'

const token = 'boundary-token-0123456789abcdef'
const schema = 'collection users { id: int primary, name: string }\ncollection notes { id: int primary, text: string }\n'

interface WsRefusal { statusCode: number; on(e: 'data', l: (c: Buffer) => void): void; on(e: 'end', l: () => void): void }
interface WsClient {
  on(event: 'open', listener: () => void): WsClient
  on(event: 'error', listener: (err: Error) => void): WsClient
  on(event: 'unexpected-response', listener: (req: unknown, res: WsRefusal) => void): WsClient
  close(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WsClient

/** A database with tenant `acme` holding a row and a snapshot `before`, served over HTTP on 127.0.0.1. */
async function setup(t: Test): Promise<{ db: Database; call: ReturnType<typeof api>; ws: (path: string) => Promise<{ status: number; body: Record<string, unknown> }> }> {
  const { db } = await openDatabase(t, schema)
  await db.ops({ op: 'create', name: 'acme' })
  await db.tenant('acme').query('insert users {id: 1, name: "Ada"}')
  await db.ops({ op: 'snapshot', name: 'acme', target: 'before' })
  const { origin, port } = await startServer(t, { db, token })
  const ws = (path: string) => new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}${path.includes('?') ? '&' : '?'}token=${token}`)
    socket.on('open', () => {
      socket.close()
      reject(new Error(`${path}: upgraded, expected a refusal`))
    })
    socket.on('error', () => {})
    socket.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }))
    })
  })
  return { db, call: api(origin, token), ws }
}

/** What the library call throws (it must throw, synchronously or by rejecting). */
async function thrown(call: () => unknown): Promise<{ name: string; code: string; message: string }> {
  try {
    await call()
  } catch (err) {
    const { name, code, message } = err as { name: string; code: string; message: string }
    return { name, code, message }
  }
  throw new Error('the library call succeeded; it was expected to fail')
}

/**
 * Asserts the library fails with `code` (an error of class `name`) and HTTP answers
 * `status` with the same code and the same sentence.
 */
async function sameRefusal(
  t: Test,
  what: string,
  library: () => unknown,
  http: () => Promise<ApiResponse | { status: number; body: Record<string, unknown> }>,
  expected: { name: string; code: string; status: number },
): Promise<void> {
  const err = await thrown(library)
  const res = await http()
  t.equal(err.name, expected.name, `${what}: the library throws a ${expected.name}`)
  t.equal(err.code, expected.code, `${what}: the library's code`)
  t.equal(res.status, expected.status, `${what}: the HTTP status`)
  t.equal(res.body?.code, err.code, `${what}: HTTP answers the library's code`)
  t.equal(res.body?.error, err.message, `${what}: and the library's sentence`)
}

t.test('a suspended tenant: the library and HTTP refuse the same calls alike, and allow the same ones', async (t) => {
  const { db, call, ws } = await setup(t)
  await db.ops({ op: 'suspend', name: 'acme' })
  const acme = db.tenant('acme')
  const suspended = (name: 'TenantError' | 'QueryError', status: number) => ({ name, code: 'tenant_suspended', status })

  await sameRefusal(t, 'query', () => acme.query('users'), () => call('/api/v1/t/acme/query', { json: { query: 'users' } }), suspended('QueryError', 400))
  await sameRefusal(t, 'tail', () => acme.tail({ after: 0 }), () => call('/api/v1/t/acme/tail?after=0'), suspended('TenantError', 423))
  await sameRefusal(t, 'tail over WebSocket', () => acme.subscribe({ after: 0 }, () => {}), () => ws('/api/v1/t/acme/tail?after=0'), suspended('TenantError', 423))
  await sameRefusal(t, 'diff', () => acme.diff({ from: 'before' }), () => call('/api/v1/t/acme/diff?from=before'), suspended('TenantError', 423))
  await sameRefusal(t, 'collections', () => acme.collections(), () => call('/api/v1/t/acme/collections'), suspended('TenantError', 423))
  await sameRefusal(t, 'compact', () => db.ops({ op: 'compact', name: 'acme' }), () => call('/api/v1/t/acme/ops', { json: { op: 'compact' } }), suspended('TenantError', 423))

  const schemaOver = await call('/api/v1/t/acme/schema')
  t.equal(schemaOver.status, 200, "a suspended tenant's schema status is still shown")
  t.same(schemaOver.body, JSON.parse(JSON.stringify(acme.schema())), 'the same over HTTP as from the library')
  const snapshotsOver = await call('/api/v1/t/acme/snapshots')
  t.equal(snapshotsOver.status, 200, 'and its snapshots')
  t.same(snapshotsOver.body, acme.snapshots())

  await db.ops({ op: 'resume', name: 'acme' })
  t.same((await call('/api/v1/t/acme/diff?from=before')).body, JSON.parse(JSON.stringify(acme.diff({ from: 'before' }))), 'resumed, both answer the diff')
})

t.test("a database's parts are private: nothing but its methods is reachable", async (t) => {
  const { db } = await setup(t)
  for (const part of ['engine', 'committer', 'runner', 'migrator', 'notifier']) t.notOk(part in db, `no ${part} on a Database`)
  const tenant = db.tenant('acme')
  for (const part of ['engine', 'committer', 'runner', 'migrator', 'notifier', 'db']) t.notOk(part in tenant, `no ${part} on a Tenant`)
})

t.test('an unknown tenant: the same refusal from every call', async (t) => {
  const { db, call, ws } = await setup(t)
  const nobody = db.tenant('nobody')
  const unknown = { name: 'TenantError', code: 'unknown_tenant', status: 404 }
  await sameRefusal(t, 'query', () => nobody.query('users'), () => call('/api/v1/t/nobody/query', { json: { query: 'users' } }), unknown)
  await sameRefusal(t, 'tail', () => nobody.tail(), () => call('/api/v1/t/nobody/tail'), unknown)
  await sameRefusal(t, 'tail over WebSocket', () => nobody.subscribe({}, () => {}), () => ws('/api/v1/t/nobody/tail'), unknown)
  await sameRefusal(t, 'diff', () => nobody.diff({ from: 'before' }), () => call('/api/v1/t/nobody/diff?from=before'), unknown)
  await sameRefusal(t, 'collections', () => nobody.collections(), () => call('/api/v1/t/nobody/collections'), unknown)
  await sameRefusal(t, 'schema', () => nobody.schema(), () => call('/api/v1/t/nobody/schema'), unknown)
  await sameRefusal(t, 'snapshots', () => nobody.snapshots(), () => call('/api/v1/t/nobody/snapshots'), unknown)
})

t.test('an unknown collection on the tail and the diff is an error, from the library as over HTTP', async (t) => {
  const { db, call, ws } = await setup(t)
  const acme = db.tenant('acme')
  const unknown = { name: 'TenantError', code: 'unknown_collection', status: 400 }
  await sameRefusal(t, 'tail', () => acme.tail({ after: 0, collection: 'nope' }), () => call('/api/v1/t/acme/tail?after=0&collection=nope'), unknown)
  await sameRefusal(t, 'long-polled tail', () => acme.tail({ after: 0, collection: 'nope', wait_ms: 30_000 }), () => call('/api/v1/t/acme/tail?after=0&collection=nope&wait_ms=30000'), unknown)
  await sameRefusal(t, 'tail over WebSocket', () => acme.subscribe({ after: 0, collection: 'nope' }, () => {}), () => ws('/api/v1/t/acme/tail?after=0&collection=nope'), unknown)
  await sameRefusal(t, 'diff', () => acme.diff({ from: 'before', collection: 'nope' }), () => call('/api/v1/t/acme/diff?from=before&collection=nope'), unknown)

  const known = await call('/api/v1/t/acme/tail?after=0&collection=users')
  t.same(known.body.events.map((e: { lsn: number }) => e.lsn), (await acme.tail({ after: 0, collection: 'users' })).events.map((e) => e.lsn), 'a declared collection: the same events')
  t.equal(known.body.events.length, 1)

  // An empty collection is no filter, for the library as over HTTP (docs/api.md, "Change tail").
  await acme.query('insert notes {id: 1, text: "a note"}')
  const all = (await acme.tail({ after: 0, collection: '' })).events.map((e) => e.lsn)
  t.same((await call('/api/v1/t/acme/tail?after=0&collection=')).body.events.map((e: { lsn: number }) => e.lsn), all, 'an empty collection: the same events')
  t.same(all, (await acme.tail({ after: 0 })).events.map((e) => e.lsn), 'as with no collection')
  t.equal(all.length, 2, 'the events of both collections')
  t.same((await call('/api/v1/t/acme/diff?from=before&collection=')).body, JSON.parse(JSON.stringify(acme.diff({ from: 'before', collection: '' }))), 'the diff: the same answer')
  t.same(Object.keys(acme.diff({ from: 'before', collection: '' }).collections).sort(), ['notes', 'users'], 'over every collection')
})

t.test('a long poll longer than the limit is refused, not lowered, by the library as over HTTP', async (t) => {
  const { db, call } = await setup(t)
  const bad = { name: 'TailRequestError', code: 'bad_request', status: 400 }
  await sameRefusal(t, 'wait_ms over the limit', () => db.tenant('acme').tail({ after: 0, wait_ms: 30_001 }), () => call('/api/v1/t/acme/tail?after=0&wait_ms=30001'), bad)
})

t.test('tenant operations: an unknown or malformed operation gets the same answer from db.ops and POST /ops', async (t) => {
  const { db, call } = await setup(t)
  const bad = { name: 'TenantError', code: 'bad_request', status: 400 }
  const ops = (body: Record<string, unknown>) => () => call('/api/v1/t/acme/ops', { json: body })
  await sameRefusal(t, 'an unknown op', () => db.ops({ op: 'explode', name: 'acme' } as never), ops({ op: 'explode', name: 'acme' }), bad)
  await sameRefusal(t, 'an op that is not a string', () => db.ops({ op: 7, name: 'acme' } as never), ops({ op: 7, name: 'acme' }), bad)
  await sameRefusal(t, 'no op', () => db.ops({ name: 'acme' } as never), ops({ name: 'acme' }), bad)
  await sameRefusal(t, 'a fork without a target', () => db.ops({ op: 'fork', name: 'acme' } as never), ops({ op: 'fork', name: 'acme' }), bad)
  await sameRefusal(t, 'a name that is not a string', () => db.ops({ op: 'suspend', name: 5 } as never), ops({ op: 'suspend', name: 5 }), bad)
  await sameRefusal(t, 'a null name', () => db.ops({ op: 'create', name: null } as never), ops({ op: 'create', name: null }), bad)
  await sameRefusal(t, 'a target that is not a string', () => db.ops({ op: 'snapshot', name: 'acme', target: ['x'] } as never), ops({ op: 'snapshot', name: 'acme', target: ['x'] }), bad)
  await sameRefusal(t, 'a name that is no tenant name', () => db.ops({ op: 'create', name: 'No Such' }), ops({ op: 'create', name: 'No Such' }), bad)
  for (const request of [null, 'create', ['create']]) {
    await t.rejects(db.ops(request as never), { name: 'TenantError', code: 'bad_request', message: /a tenant operation is an object/ }, `the library refuses ${JSON.stringify(request)} (HTTP refuses such a body as JSON it cannot take)`)
  }
  t.equal(db.tenant('acme').schema().tenant.blocked, null, 'nothing was changed by any of them')
  t.same((await call('/api/v1/tenants')).body.tenants.map((r: { name: string }) => r.name), ['acme', 'default'])
})
