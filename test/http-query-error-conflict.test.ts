// Every error body carries `conflict` (docs/api.md, "Errors"), false unless a race was
// lost: not only the query's own failures (the error handler) but the answers of the
// hooks before it (401, 403 for a refused host or origin, 429, 503 while the server
// closes) and 404, 413 and a body its schema refuses, over real HTTP, on the query route
// and on another (ops) alike. (The 408 of a stalled body: test/http-status-shapes.test.ts.)
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import t, { type Test } from 'tap'
import { body_bytes_max } from '../src/limits.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { pollUntil } from './helpers/poll.js'
import { jsonBody, rawRequest, requestText } from './helpers/raw-http.js'

const token = 'query-conflict-token-0123456789'
const wrong = token.replace(/.$/, 'X')
const query = '/api/v1/t/default/query'
const ops = '/api/v1/t/default/ops'
type Json = Record<string, unknown>

interface Answer { status: number; body: Json }

async function post(origin: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(origin + path, { method: 'POST', headers, body })
  return { status: res.status, body: (await res.json()) as Json }
}

/** The query route's answer and the ops route's: the same status and code, and conflict: false. */
function compare(t: Test, what: string, onQuery: Answer, onOps: Answer, status: number, code: string): void {
  t.equal(onQuery.status, status, `${what}: query route status`)
  t.match(onQuery.body, { error: String, code }, `${what}: query route body`)
  t.equal(onQuery.body.conflict, false, `${what}: the query route's body has conflict: false`)
  t.equal(onOps.status, status, `${what}: ops route status`)
  t.match(onOps.body, { error: String, code }, `${what}: ops route body`)
  t.equal(onOps.body.conflict, false, `${what}: the ops route's body has conflict: false`)
}

t.test('401, 403 (a refused origin or host), 404, 413 and a refused body carry conflict: false on the query route and others', async (t) => {
  const db = await openExampleDatabase(t)
  const { origin, port } = await startServer(t, { token, db })
  const auth = { authorization: `Bearer ${token}` }

  compare(t, 'no token', await post(origin, query, 'users'), await post(origin, ops, '{"op": "create"}'), 401, 'unauthorized')
  compare(t, 'a wrong token', await post(origin, query, 'users', { authorization: `Bearer ${wrong}` }),
    await post(origin, ops, '{"op": "create"}', { authorization: `Bearer ${wrong}` }), 401, 'unauthorized')
  compare(t, 'a hostile origin', await post(origin, query, 'users', { ...auth, origin: 'http://evil.example' }),
    await post(origin, ops, '{"op": "create"}', { ...auth, origin: 'http://evil.example' }), 403, 'origin_not_allowed')
  compare(t, 'a cross-site request without an Origin', await post(origin, query, 'users', { ...auth, 'sec-fetch-site': 'cross-site' }),
    await post(origin, ops, '{"op": "create"}', { ...auth, 'sec-fetch-site': 'cross-site' }), 403, 'origin_not_allowed')
  compare(t, 'an unknown tenant', await post(origin, query.replace('default', 'nobody'), 'users', auth),
    await post(origin, ops.replace('default', 'nobody'), '{"op": "suspend"}', auth), 404, 'unknown_tenant')
  const huge = 'x'.repeat(body_bytes_max + 1)
  compare(t, 'a body over the limit', await post(origin, query, huge, auth), await post(origin, ops, huge, auth), 413, 'payload_too_large')
  compare(t, 'a body its schema refuses', await post(origin, query, '{"query": 1}', auth), await post(origin, ops, '{"op": 1}', auth), 400, 'bad_request')

  // Host is checked on the raw request: fetch would send its own.
  const host = async (path: string, body: string): Promise<Answer> => {
    const res = await rawRequest(port, requestText('POST', path, 'evil.example', auth, body))
    return { status: res.status, body: jsonBody(res) ?? {} }
  }
  compare(t, 'a host not allowed', await host(query, 'users'), await host(ops, '{"op": "create"}'), 403, 'host_not_allowed')

  // Any content type is read (docs/api.md): none is refused with 415.
  const odd = await fetch(origin + query, { method: 'POST', headers: { ...auth, 'content-type': 'application/x-anything' }, body: 'users | take 1' })
  t.equal(odd.status, 200, 'an unusual content type is read as the query text')
})

t.test('429 carries conflict: false', async (t) => {
  const db = await openExampleDatabase(t)
  const answers: Record<string, Answer> = {}
  for (const [name, path, body] of [['query', query, 'users'], ['ops', ops, '{"op": "create"}']] as const) {
    // A fresh server for each: the throttle counts per server and address.
    const { origin } = await startServer(t, { token, db })
    let last: Answer = { status: 0, body: {} }
    for (let i = 0; i < 50 && last.status !== 429; i++) last = await post(origin, path, body, { authorization: `Bearer ${wrong}` })
    answers[name] = last
  }
  compare(t, 'too many wrong tokens', answers.query as Answer, answers.ops as Answer, 429, 'rate_limited')
})

t.test('503 shutting_down carries conflict: false', async (t) => {
  const answers: Record<string, Answer> = {}
  for (const [name, path, body] of [['query', query, 'users'], ['ops', ops, '{"op": "create"}']] as const) {
    const { app, port } = await startServer(t, { token })
    const accepted: Socket[] = []
    app.server.on('connection', (socket: Socket) => accepted.push(socket))
    // The request has begun, so closing waits for it; it completes once the server closes.
    const client = connect(port, '127.0.0.1')
    await once(client, 'connect')
    const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${body.length}\r\n`
    client.write(head)
    await pollUntil(() => accepted.length === 1 && accepted[0]?.bytesRead === head.length, "the server to read the request's first lines")
    const received: Buffer[] = []
    client.on('data', (chunk: Buffer) => received.push(chunk))
    const ended = once(client, 'end')
    const closing = app.close()
    await pollUntil(() => !app.server.listening, 'the listener to close')
    client.write(`\r\n${body}`)
    await ended
    await closing
    const text = Buffer.concat(received).toString('utf8')
    const [headText = '', json = '{}'] = text.split('\r\n\r\n')
    answers[name] = { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? 0), body: JSON.parse(json) as Json }
  }
  compare(t, 'the server is closing', answers.query as Answer, answers.ops as Answer, 503, 'shutting_down')
})
