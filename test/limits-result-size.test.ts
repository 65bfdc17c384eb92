// The answer's size over real HTTP (docs/api.md, "Size of an answer"): a
// 43-byte query whose answer would be gigabytes of JSON (a lookup many in which every
// row finds all 10 000) is refused with 400 `result_too_large` at once, while the
// server answers other requests; a large answer under the bound arrives whole, written
// a chunk at a time, to the byte what the library returns.
import t from 'tap'
import type { Database } from '../src/database/index.js'
import { result_bytes_max } from '../src/limits.js'
import { openDatabase } from './helpers/database.js'
import { startServer } from './helpers/http-server.js'

const token = 'result-size-token-0123456789'
const auth = { authorization: `Bearer ${token}` }

/** 10 000 rows of one group: a lookup many on the group finds all of them for each. */
async function oneGroup(t: Parameters<typeof openDatabase>[0]): Promise<Database> {
  const { db } = await openDatabase(t, 'collection m { id: int primary, g: int }')
  for (let b = 0; b < 10; b += 1) {
    await db.tenant('default').query('insert m $rows', { rows: Array.from({ length: 1000 }, (_, i) => ({ id: b * 1000 + i, g: 0 })) })
  }
  return db
}

t.test('a lookup whose answer would be gigabytes is refused at once with result_too_large; the server answers meanwhile', async (t) => {
  const db = await oneGroup(t)
  const { origin } = await startServer(t, { token, db })
  const started = Date.now()
  let running = true
  const query = fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: auth, body: 'm | lookup many x: m on g == g | take 10000' })
    .finally(() => { running = false })
  // Asked every 50 ms while the query runs (it used to hold the event loop for 15 s, then answer 500).
  const waits: number[] = []
  do {
    const asked = Date.now()
    t.equal((await fetch(`${origin}/api/v1/health`, { headers: auth })).status, 200)
    waits.push(Date.now() - asked)
    await new Promise((resolve) => setTimeout(resolve, 50))
  } while (running)
  t.ok(Math.max(...waits) < 2000, `other requests are answered meanwhile (${waits.join(', ')} ms)`)
  const res = await query
  const ms = Date.now() - started
  t.equal(res.status, 400)
  t.match(await res.json(), { code: 'result_too_large', conflict: false, error: `the answer would be more than ${result_bytes_max} bytes of JSON (result_bytes_max)` })
  t.ok(ms < 5000, `refused quickly (${ms} ms)`)
  const after = await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: auth, body: 'm | count' })
  t.same((await after.json() as { rows: unknown }).rows, [[10000]], 'and goes on answering queries')
})

t.test('a large answer under the bound arrives whole, a chunk at a time, as the library returns it', async (t) => {
  const db = await oneGroup(t)
  const { origin } = await startServer(t, { token, db })
  // 60 rows, each with all 10 000 rows of the group: about 10 MiB of JSON.
  const text = 'm | lookup many x: m on g == g | take 60'
  const res = await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: auth, body: text })
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
  t.equal(res.headers.get('transfer-encoding'), 'chunked', 'streamed, not one string of the whole answer')
  t.equal(res.headers.get('content-length'), null)
  const body = await res.text()
  t.ok(body.length > 10_000_000 && body.length < result_bytes_max, `${body.length} bytes`)
  const answered = JSON.parse(body) as { stats: unknown }
  const library = await db.tenant('default').query(text)
  t.equal(body, JSON.stringify({ ...library, stats: answered.stats }), 'to the byte the library\'s answer as JSON')
  // A small answer is still one body with its length.
  const small = await fetch(`${origin}/api/v1/t/default/query`, { method: 'POST', headers: auth, body: 'm | take 2' })
  t.equal(small.headers.get('content-length'), String(Buffer.byteLength(await small.text())))
})
