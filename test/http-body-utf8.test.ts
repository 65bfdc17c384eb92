// A body that is not well-formed UTF-8 is refused with 400 `bad_request` (docs/api.md,
// "Requests"), JSON and text alike, instead of being decoded leniently (each bad
// sequence becoming U+FFFD, so `acct-\xff` and `acct-\xfe` were one key). Raw bytes
// over real HTTP, the real engine; the query route's refusal also says `conflict:
// false`.
import t from 'tap'
import { openExampleDatabase, startServer } from './helpers/http-server.js'
import { jsonBody, rawRequest, requestText } from './helpers/raw-http.js'

const token = 'utf8-token-0123456789abcdef'

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))))

t.test('ill-formed UTF-8 in a body is refused, and distinct keys stay distinct', async (t) => {
  const db = await openExampleDatabase(t)
  const { port } = await startServer(t, { token, db })
  const post = (path: string, type: string, body: Buffer) =>
    rawRequest(port, requestText('POST', path, `127.0.0.1:${port}`, { authorization: `Bearer ${token}`, 'content-type': type }, body))

  // The reported reproduction: two upserts whose keys differ only in an invalid byte.
  const ill_formed: Array<[string, number[]]> = [
    ['\\xff', [0xff]],
    ['\\xfe', [0xfe]],
    ['a lone continuation byte', [0x80]],
    ['a truncated two-byte sequence', [0xc3]],
    ['an overlong /', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ]
  for (const [name, bad] of ill_formed) {
    const text = post('/api/v1/t/default/query', 'text/plain', bytes('upsert users {id: 1, email: "acct-', bad, '", name: "a"}'))
    const json = post('/api/v1/t/default/query', 'application/json', bytes('{"query": "upsert users {id: 2, email: $e, name: \\"a\\"}", "params": {"e": "acct-', bad, '"}}'))
    for (const [form, res] of [['text', await text], ['json', await json]] as const) {
      t.equal(res.status, 400, `${name} (${form} body)`)
      t.same(jsonBody(res), { error: 'the request body is not well-formed UTF-8', code: 'bad_request', conflict: false }, `${name} (${form} body)`)
    }
  }
  const ops = await post('/api/v1/t/default/ops', 'application/json', bytes('{"op": "create", "name": "t', [0xff], '"}'))
  t.equal(ops.status, 400, 'the ops route too')
  t.same(jsonBody(ops), { error: 'the request body is not well-formed UTF-8', code: 'bad_request', conflict: false })
  t.same((await db.tenant('default').query('users')).rows, [], 'nothing was written')
  t.same(db.tenants().tenants.map((x) => x.name), ['default'], 'no tenant was created')

  // Well-formed multi-byte text is kept exactly, and distinct keys stay distinct.
  for (const [id, email] of [[1, 'acct-é'], [2, 'acct-ê'], [3, 'acct-😀'], [4, '\ufeffacct']] as const) {
    const res = await post('/api/v1/t/default/query', 'text/plain', bytes(`upsert users {id: ${id}, email: "${email}", name: "a"}`))
    t.equal(res.status, 200, email)
  }
  const stored = await db.tenant('default').query('users | sort id | select email')
  t.same(stored.rows, [['acct-é'], ['acct-ê'], ['acct-😀'], ['\ufeffacct']], 'four rows, each as sent')
})
