// The change feed's statuses (TailOptions.onStatus, docs/client.md "The change feed")
// against a real in-process server, over WebSocket and over long polls: connecting,
// then live (long-polling without a WebSocket); the server shutting down makes it
// retrying with the reason in words; a server started again on the same port and
// database makes it live again, and the feed goes on with the next event.
import t from 'tap'
import WebSocket from 'ws'
import { tailEvents, type TailEvent, type TailStatus, type WebSocketConstructor } from '../src/client/tail.js'
import { buildServer } from '../src/http/index.js'
import { client_tail_token as token, insertItem, startTailServer } from './helpers/client-tail-server.js'
import { pollUntil } from './helpers/poll.js'

const ws = WebSocket as unknown as WebSocketConstructor
const transports = [['websocket', { WebSocket: ws }, 'live'], ['long poll', {}, 'long-polling']] as const
const backoff = { initial_ms: 20, max_ms: 200 }

for (const [name, transport, receiving] of transports) {
  t.test(`${name}: connecting, ${receiving}; retrying when the server shuts down; ${receiving} again once it is back`, async (t) => {
    const { db, app, origin, port } = await startTailServer(t)
    const statuses: TailStatus[] = []
    const feed = tailEvents({ urls: [origin], token, tenant: 'default', after: await insertItem(db, 1), backoff, ...transport, onStatus: (s) => statuses.push(s) })
    t.teardown(() => feed.return?.())
    const first = feed.next()
    await pollUntil(() => statuses.some((s) => s.state === receiving), () => `${receiving} (${JSON.stringify(statuses)})`)
    t.same(statuses, [{ state: 'connecting', url: origin }, { state: receiving, url: origin }], 'connecting, then receiving')
    const live = await insertItem(db, 2)
    t.equal(((await first).value as TailEvent).lsn, live, 'a live event comes')

    // The feed works while it is asked for an event: one waits through the outage.
    const next = feed.next()
    const before = statuses.length
    await app.close()
    await pollUntil(() => statuses.slice(before).some((s) => s.state === 'retrying'), () => `retrying (${JSON.stringify(statuses.slice(before))})`)
    const retrying = statuses.slice(before).find((s) => s.state === 'retrying') as Extract<TailStatus, { state: 'retrying' }>
    t.match(retrying.reason, /the server is shutting down|no answer from/, `a reason in words: ${retrying.reason}`)
    t.ok(retrying.in_ms > 0 && retrying.in_ms <= backoff.max_ms, `and when it tries again (${retrying.in_ms} ms)`)
    if (name === 'websocket') t.match(retrying.reason, /the server is shutting down \(close 1001/, 'the close code\'s meaning')

    await pollUntil(() => statuses.slice(before).filter((s) => s.state === 'retrying').length >= 2, 'a reconnect to a server that is not there')
    const down = statuses.slice(before).filter((s) => s.state === 'retrying').at(-1) as Extract<TailStatus, { state: 'retrying' }>
    t.match(down.reason, new RegExp(`no answer from ${origin.replace(/[.]/g, '\\.')}`), `nobody listening: ${down.reason}`)

    const again = await buildServer({ token, schema: [], db })
    await again.listen({ host: '127.0.0.1', port })
    t.teardown(() => again.close())
    const back = statuses.length
    await pollUntil(() => statuses.slice(back).some((s) => s.state === receiving), () => `${receiving} again (${JSON.stringify(statuses.slice(back))})`)
    t.same(statuses.slice(back).filter((s) => s.state !== 'retrying').slice(-2), [{ state: 'connecting', url: origin }, { state: receiving, url: origin }], 'connecting, then receiving again')
    const lsn = await insertItem(db, 3)
    t.equal((await next).value?.lsn, lsn, 'the feed goes on')
  })
}

t.test('connecting and live once, however many events come', async (t) => {
  const { db, origin } = await startTailServer(t)
  for (let id = 1; id <= 3; id += 1) await insertItem(db, id)
  const statuses: TailStatus[] = []
  const got: number[] = []
  for await (const event of tailEvents({ urls: [origin], token, tenant: 'default', WebSocket: ws, backoff, onStatus: (s) => statuses.push(s) })) {
    if (got.push(event.lsn) >= 3) break
  }
  t.same(statuses.map((s) => s.state), ['connecting', 'live'])
})
