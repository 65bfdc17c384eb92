// R9: no token, right or wrong, reaches a log line, whichever way it was passed:
// query string, Authorization, X-Service-Token, or the WebSocket tail's URL; nor a
// tenant token's hash or id, whatever it was used for (issued, used, refused,
// revoked, its last use written).
import { createHash } from 'node:crypto'
import { Writable } from 'node:stream'
import t from 'tap'
import { createRequire } from 'node:module'
import { startServer } from './helpers/http-server.js'
import { issue } from './helpers/tenant-tokens.js'

// `ws` ships no types; this test needs only open, close and error.
interface WsClient {
  on(event: 'open' | 'close', listener: () => void): void
  on(event: 'error', listener: (err: Error) => void): void
  close(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WsClient

const token = 'r9-secret-token-DO-NOT-LOG-42'
const wrong = 'r9-wrong-token-ALSO-NOT-LOGGED'

t.test('R9: logs of a whole session hold no token', async (t) => {
  const lines: string[] = []
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done() } })
  const { origin } = await startServer(t, { token, logger: { level: 'trace', stream } })
  const calls: Array<[string, RequestInit]> = [
    [`/api/v1/health?token=${token}`, {}],
    ['/api/v1/health', { headers: { authorization: `Bearer ${token}` } }],
    ['/api/v1/stats', { headers: { 'x-service-token': token } }],
    [`/api/v1/health?token=${wrong}`, {}],
    ['/api/v1/health', { headers: { authorization: `Bearer ${wrong}` } }],
    [`/api/v1/t/default/query?token=${token}`, { method: 'POST', body: '{"query":"nope"}' }],
    [`/api/v1/nope?token=${token}`, {}],
  ]
  for (const [path, init] of calls) await (await fetch(origin + path, init)).arrayBuffer()
  await new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(`${origin.replace('http', 'ws')}/api/v1/t/default/tail?token=${token}`)
    socket.on('open', () => socket.close())
    socket.on('close', () => resolve())
    socket.on('error', reject)
  })
  t.ok(lines.length >= calls.length, `${lines.length} log lines were written`)
  t.ok(lines.some((l) => l.includes('/api/v1/health')), 'requests are logged (by path)')
  for (const line of lines) {
    t.notOk(line.includes(token) || line.includes(wrong), 'no token in this log line')
  }
})

t.test('R9: tenant tokens, their hashes and their ids reach no log line', async (t) => {
  const lines: string[] = []
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done() } })
  const { origin, db, app } = await startServer(t, { token, logger: { level: 'trace', stream } })
  const admin = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(origin + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) } })
    return { status: res.status, body: await res.json() as Record<string, unknown> }
  }
  await admin('/api/v1/t/default/ops', { method: 'POST', body: JSON.stringify({ op: 'create', name: 'acme' }) })
  const secrets: string[] = []
  const issued: Array<{ token: string; id: string }> = []
  for (const scope of ['read', 'write', 'admin']) {
    const res = await admin('/api/v1/t/acme/tokens', { method: 'POST', body: JSON.stringify({ scope, name: `r9 ${scope}` }) })
    issued.push(res.body as { token: string; id: string })
  }
  const expired = await issue(db, 'acme', 'read', { expires_in_s: 1, now: new Date(Date.now() - 60_000) })
  issued.push(expired)
  for (const { token: secret, id } of issued) secrets.push(secret, id, createHash('sha256').update(secret).digest('hex'))
  const [read, write, adminToken] = issued as [{ token: string; id: string }, { token: string; id: string }, { token: string; id: string }]
  const calls: Array<[string, RequestInit]> = [
    [`/api/v1/t/acme/query?token=${read.token}`, { method: 'POST', body: '{"query":"users | take 1"}' }],
    ['/api/v1/t/acme/query', { method: 'POST', body: '{"query":"insert users {id: 1, email: \\"a@x\\", name: \\"A\\"}"}', headers: { authorization: `Bearer ${read.token}` } }],
    ['/api/v1/t/acme/query', { method: 'POST', body: '{"query":"insert users {id: 1, email: \\"a@x\\", name: \\"A\\"}"}', headers: { 'x-service-token': write.token } }],
    ['/api/v1/t/default/schema', { headers: { authorization: `Bearer ${write.token}` } }],
    ['/api/v1/stats', { headers: { authorization: `Bearer ${adminToken.token}` } }],
    ['/api/v1/t/acme/ops', { method: 'POST', body: '{"op":"fork","target":"acme-copy"}', headers: { authorization: `Bearer ${adminToken.token}`, 'content-type': 'application/json' } }],
    ['/api/v1/t/acme/tokens', { headers: { authorization: `Bearer ${adminToken.token}` } }],
    [`/api/v1/health?token=${expired.token}`, {}],
    [`/api/v1/t/acme/tokens/${read.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }],
    [`/api/v1/t/acme/tokens/${read.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }],
    [`/api/v1/t/acme/schema?token=${read.token}`, {}],
    [`/api/v1/t/acme/tokens/${write.id}/nope?token=${token}`, {}],
  ]
  for (const [path, init] of calls) await (await fetch(origin + path, init)).arrayBuffer()
  await new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(`${origin.replace('http', 'ws')}/api/v1/t/acme/tail?token=${write.token}`)
    socket.on('open', () => socket.close())
    socket.on('close', () => resolve())
    socket.on('error', reject)
  })
  // The last uses are written when the server closes: their keys hold the hashes.
  await app.close()
  t.ok(lines.length >= calls.length + 4, `${lines.length} log lines were written`)
  t.ok(lines.some((l) => l.includes('"route":"/api/v1/t/:tenant/tokens/:id"')), 'the revocations are logged, by the route\'s pattern')
  t.ok(lines.some((l) => l.includes('"code":"forbidden"')), 'refusals are logged with their code')
  for (const line of lines) {
    const held = secrets.filter((secret) => line.includes(secret))
    t.same(held, [], `no token, hash or id in: ${line.slice(0, 160)}`)
  }
})
