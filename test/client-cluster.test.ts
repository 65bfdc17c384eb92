// The client against a real two-node cluster (docs/client.md, "Clusters";
// docs/replication.md): a real nats-server and two `tenantdb serve --nats` nodes. A
// write sent to the follower is answered 421 naming the primary and lands there; reads
// are served by the follower; with the primary killed, a read goes on to the follower
// and a write fails with network_error, sent nowhere else. Under writes, a killed
// primary is followed to the new one without the caller doing anything but calling
// again, and every write the client reported acknowledged is there.
import t from 'tap'
import { connect } from '../src/client/index.js'
import { TenantdbError } from '../src/client/index.js'
import { cluster_token, primaryAndFollower, waitForLsn, waitForPrimary } from './helpers/cluster.js'
import { rejection } from './helpers/client-suite.js'

const schema = 'collection items { id: int primary, v: int }\n'

t.test('a write to the follower reaches the primary; reads fail over, a write with no answer does not', async (t) => {
  const { a, b } = await primaryAndFollower(t, schema, 2000)

  const viaFollower = await connect({ urls: [b.origin, a.origin], token: cluster_token, tenant: 'default' })
  const written = await viaFollower.query('insert items $rows', { rows: [{ id: 1, v: 10 }, { id: 2, v: 20 }] })
  t.type(written.lsn, 'number', 'the write sent to the follower committed on the primary')
  t.same(await a.ids(), [1, 2], 'the primary holds it')
  await viaFollower.query('insert items {id: 3, v: 30}')
  await waitForLsn([b], (await a.status())?.applied_lsn ?? Infinity)
  t.same(await b.ids(), [1, 2, 3], 'and the follower, replicated')
  t.same((await viaFollower.query('items | get 3 | select v', {}, {})).rows, [[30]])
  t.match(await viaFollower.client.health(), { ok: true })

  const primaryFirst = await connect({ urls: [a.origin, b.origin], token: cluster_token, tenant: 'default' })
  await a.kill9()
  t.match(await primaryFirst.client.health(), { ok: true }, 'a read goes on to the follower')
  t.same((await primaryFirst.collections()).collections.map((c) => c.name), ['items'])
  const lost = await rejection(t, primaryFirst.query('insert items {id: 4, v: 40}'), 'a write to the killed primary')
  t.match(lost, { code: 'network_error', status: undefined }, 'not sent to the follower')
  t.same(await b.ids(), [1, 2, 3], 'nothing more was written')
  t.equal(await b.stop(), 0)
})

t.test('failover under writes: the client\'s writes go on on the new primary, and every acknowledged one is there', async (t) => {
  const { a, b, first } = await primaryAndFollower(t, schema, 1000)
  const db = await connect({ urls: [a.origin, b.origin], token: cluster_token, tenant: 'default', timeout_ms: 5000 })

  const acked: number[] = []
  const refusals = new Map<string, number>()
  let next = 1
  let killed = false
  let after_kill = 0
  // One writer, one insert at a time, each a new id; the caller only calls again.
  const writer = (async () => {
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline && after_kill < 20) {
      const id = next++
      try {
        await db.query('insert items {id: $id, v: 1}', { id })
        acked.push(id)
        if (killed) after_kill += 1
      } catch (err) {
        if (!(err instanceof TenantdbError)) throw err
        refusals.set(err.code, (refusals.get(err.code) ?? 0) + 1)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  })()
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.ok(acked.length > 0, `writes acknowledged by the first primary (${acked.length})`)
  await a.kill9()
  killed = true
  const { node } = await waitForPrimary([b], { above_term: first.term })
  t.equal(node, b, 'the follower took over')
  await writer
  t.comment(`acknowledged ${acked.length}, refused ${JSON.stringify(Object.fromEntries(refusals))}`)
  t.equal(after_kill, 20, 'writes went on on the new primary, through the same client')
  const held = new Set(await b.ids())
  t.same(acked.filter((id) => !held.has(id)), [], 'every write the client reported acknowledged is on the new primary')
  t.equal(await b.stop(), 0)
})
