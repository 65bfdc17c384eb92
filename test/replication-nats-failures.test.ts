// NATS failures (R17, docs/architecture.md; docs/replication.md, "When NATS is away"):
// the nats-server under a two-node cluster is killed with SIGKILL and started again on
// the same port and store. In sync mode the primary refuses writes while it cannot
// reach NATS (503 `not_primary`, its role `fenced`), acknowledges none begun after
// NATS died, and takes writes again once NATS is back; in async mode it keeps taking
// writes (reporting the frames the stream lacks as its lag) and publishes them when
// NATS returns. Either way the follower ends with every acknowledged write, and
// `verify` is clean on both directories.
import t from 'tap'
import { verifyDirectory } from '../src/database/index.js'
import { ClusterNode, waitForLsn, waitForPrimary, writeSchema } from './helpers/cluster.js'
import { startNatsServer } from './helpers/nats-server.js'

const lease_ms = 1000

for (const mode of ['sync', 'async'] as const) {
  t.test(`${mode}: the NATS server killed and started again`, async (t) => {
    const nats = await startNatsServer(t)
    const file = writeSchema(t, 'collection items { id: int primary, v: int }\n')
    const [a, b] = ['a', 'b'].map((name) => new ClusterNode(t, { name, nats: () => nats.url, schema: file, leaseMs: lease_ms, mode })) as [ClusterNode, ClusterNode]
    await a.start()
    await waitForPrimary([a])
    await b.start()
    let next_id = 1
    const acked: number[] = []
    const insert = async (node: ClusterNode) => {
      const id = next_id++
      const res = await node.api('/api/v1/t/default/query', { json: { query: 'insert items {id: $id, v: 0}', params: { id } }, signal: AbortSignal.timeout(20_000) }).catch(() => null)
      if (res?.status === 200) acked.push(id)
      return res
    }
    for (let i = 0; i < 20; i++) t.equal((await insert(a))?.status, 200, `write ${i + 1} before the outage`)
    const term_before = (await a.status())?.term

    await nats.stop('SIGKILL')
    const during: Array<number | null> = []
    if (mode === 'sync') {
      // Every write begun now waits for a stream that is gone: none is acknowledged, and once
      // the lease can no longer be renewed in time they are refused at once.
      let refused = null
      for (let i = 0; i < 200 && refused === null; i++) {
        const res = await insert(a)
        during.push(res?.status ?? null)
        if (res?.status === 503) refused = res
      }
      t.ok(refused !== null, 'the primary refuses writes with 503 while NATS is away')
      t.match(refused?.body, { code: 'not_primary' })
      t.notOk(during.includes(200), `no write begun after NATS died was acknowledged (${during.join(',')})`)
      t.equal((await a.status())?.role, 'fenced', 'its role is fenced')
    } else {
      for (let i = 0; i < 30; i++) during.push((await insert(a))?.status ?? null)
      t.ok(during.every((s) => s === 200), `the async primary keeps taking writes (${during.join(',')})`)
      const status = await a.status()
      t.ok((status?.lag_frames ?? 0) >= 30, `and reports the frames the stream lacks as its lag (${status?.lag_frames} frames, ${status?.lag_ms} ms)`)
    }
    // An outage longer than a renewal's request timeout: renewals sent meanwhile wait in the
    // client's buffer and may land once NATS is back (lease.ts adopts them as its own).
    await new Promise((resolve) => setTimeout(resolve, 3 * lease_ms))

    await nats.start()
    // Writes go through again (on whichever node holds the lease now).
    let after = null
    for (let i = 0; i < 2000 && after?.status !== 200; i++) {
      const { node } = await waitForPrimary([a, b])
      after = await insert(node)
      if (after?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    t.equal(after?.status, 200, 'writes are acknowledged again once NATS is back')
    const { node: primary, status } = await waitForPrimary([a, b])
    if (mode === 'async') {
      // Kept, not merely held a moment longer: a follower timing the lease from its first
      // read after the outage must not find it unrenewed for a whole lease.
      await new Promise((resolve) => setTimeout(resolve, 3 * lease_ms))
      const later = await a.status()
      t.equal(primary, a, 'the async primary kept its lease')
      t.same([later?.role, later?.term], ['primary', term_before], `in the same term, three leases after NATS came back (${later?.role}, term ${later?.term})`)
    }
    await waitForLsn([a, b], status.applied_lsn)
    for (const n of [a, b]) {
      const held = new Set(await n.ids())
      t.same(acked.filter((id) => !held.has(id)), [], `node ${n.name} holds every acknowledged write (${acked.length})`)
    }
    t.equal((await primary.status())?.lag_frames, 0, 'the primary\'s lag is 0 once the stream caught up')
    for (const n of [a, b]) t.equal(await n.stop(), 0, `node ${n.name} stops cleanly`)
    for (const n of [a, b]) t.same((await verifyDirectory(n.dir)).problems, [], `verify is clean on node ${n.name}`)
  })
}
