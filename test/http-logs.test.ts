// R9: no token, right or wrong, reaches a log line, whichever way it was passed:
// query string, Authorization, X-Service-Token, or the WebSocket tail's URL.
import { Writable } from 'node:stream'
import t from 'tap'
import { createRequire } from 'node:module'
import { startServer } from './helpers/http-server.js'

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
