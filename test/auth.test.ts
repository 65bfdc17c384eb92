// Auth over real HTTP: every accepted place of the token, every way of getting it wrong.
import t from 'tap'
import { startServer } from './helpers/http-server.js'

const token = 'correct-horse-battery-staple-0123'

t.test('auth: the token is accepted in each of the three places', async (t) => {
  const { origin } = await startServer(t, { token })
  for (const [how, url, headers] of [
    ['query', `/api/v1/health?token=${token}`, {}],
    ['bearer', '/api/v1/health', { authorization: `Bearer ${token}` }],
    ['x-service-token', '/api/v1/health', { 'x-service-token': token }],
  ] as const) {
    const res = await fetch(origin + url, { headers })
    t.equal(res.status, 200, how)
    const body = (await res.json()) as Record<string, unknown>
    t.equal(body.ok, true, how)
    t.equal(body.tenant, 'default', how)
    t.match(body.version, /^\d+\.\d+\.\d+/, how)
  }
})

t.test('auth: missing, wrong and wrong-length tokens get 401 with the documented body', async (t) => {
  const { origin } = await startServer(t, { token })
  const wrongSameLength = token.replace(/.$/, (c) => (c === 'x' ? 'y' : 'x'))
  t.equal(wrongSameLength.length, token.length)
  const cases: Array<[string, string, Record<string, string>]> = [
    ['none', '/api/v1/health', {}],
    ['wrong, equal length, query', `/api/v1/health?token=${wrongSameLength}`, {}],
    ['wrong, equal length, bearer', '/api/v1/health', { authorization: `Bearer ${wrongSameLength}` }],
    ['wrong length, header', '/api/v1/health', { 'x-service-token': 'short' }],
    ['basic instead of bearer', '/api/v1/health', { authorization: `Basic ${token}` }],
    ['unknown api route', '/api/v1/nope', {}],
  ]
  for (const [how, url, headers] of cases) {
    const res = await fetch(origin + url, { headers })
    t.equal(res.status, 401, how)
    t.equal(res.headers.get('www-authenticate'), 'Bearer', how)
    t.same(await res.json(), { error: 'missing or invalid token', code: 'unauthorized', conflict: false }, how)
  }
})

t.test('auth: an unknown route with the token is a JSON 404', async (t) => {
  const { origin } = await startServer(t, { token })
  const res = await fetch(`${origin}/api/v1/nope`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 404)
  t.same(await res.json(), { error: 'no route GET /api/v1/nope', code: 'not_found', conflict: false })
})

t.test('auth: a burst of failed authentications is throttled with 429 and retry-after', async (t) => {
  const { origin } = await startServer(t, { token })
  let status = 0
  let attempts = 0
  while (status !== 429 && attempts < 100) {
    attempts += 1
    status = (await fetch(`${origin}/api/v1/health`, { headers: { 'x-service-token': 'guess' } })).status
  }
  t.equal(status, 429, `throttled after ${attempts} attempts`)
  t.equal(attempts, 21, 'the 21st failure within the window is refused')
  const right = await fetch(`${origin}/api/v1/health`, { headers: { 'x-service-token': token } })
  t.equal(right.status, 200, 'the right token does not wait out the block (test/auth-lockout.test.ts)')
  await right.arrayBuffer()
  const blocked = await fetch(`${origin}/api/v1/health`, { headers: { 'x-service-token': 'guess' } })
  t.equal(blocked.status, 429, 'a wrong one does')
  t.ok(Number(blocked.headers.get('retry-after')) >= 1)
  t.same(await blocked.json(), {
    error: 'too many failed authentications from this address; retry later',
    code: 'rate_limited',
    conflict: false,
  })
})

t.test('schema source is served as text behind auth', async (t) => {
  const { origin } = await startServer(t, {
    token,
    schema: [{ name: 'a.eel', source: 'collection a {}' }, { name: 'b.eel', source: 'collection b {}\n' }],
  })
  const res = await fetch(`${origin}/api/v1/schema.eel`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/plain/)
  t.equal(await res.text(), '# file: a.eel\ncollection a {}\n# file: b.eel\ncollection b {}\n')
  t.equal((await fetch(`${origin}/api/v1/schema.eel`)).status, 401)
})
