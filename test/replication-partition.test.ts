// A partitioned primary (R17, docs/architecture.md; docs/replication.md, "Partitions"):
// the primary reaches NATS through a TCP proxy that the test cuts (the connection
// goes silent, as a partition does), while clients still reach the primary and the
// followers still reach NATS.
//
// sync: the primary stops acknowledging writes before a follower is promoted (every
// acknowledgement the clients received came before the new term's record was
// written), answers 503 `not_primary` while cut off, and once the network heals
// rejoins as a follower, with every acknowledged write on every node.
//
// async: the cut-off primary goes on acknowledging writes (the mode's loss window);
// a follower takes over; when the network heals the old primary finds it holds
// frames the cluster never acknowledged, moves its directory aside with those frames
// in `diverged.frames` (and what and why in `diverged.json`), copies the new
// primary's backup and follows it. It never diverges silently.
import { readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import t from 'tap'
import { verifyDirectory } from '../src/database/index.js'
import { ClusterNode, waitForLsn, waitForPrimary, writeSchema } from './helpers/cluster.js'
import { readClusterStream } from './helpers/cluster-stream.js'
import { startNatsServer } from './helpers/nats-server.js'
import { startTcpProxy } from './helpers/tcp-proxy.js'

const lease_ms = 1000

for (const mode of ['sync', 'async'] as const) {
  t.test(`${mode}: a primary cut off from NATS`, async (t) => {
    const nats = await startNatsServer(t)
    const proxy = await startTcpProxy(t, () => nats.port)
    const file = writeSchema(t, 'collection items { id: int primary, v: int }\n')
    const options = { schema: file, leaseMs: lease_ms, mode }
    const a = new ClusterNode(t, { name: 'a', nats: () => `nats://127.0.0.1:${proxy.port}`, ...options })
    const [b, c] = ['b', 'c'].map((name) => new ClusterNode(t, { name, nats: () => nats.url, ...options })) as [ClusterNode, ClusterNode]
    await a.start()
    await waitForPrimary([a])
    await Promise.all([b.start(), c.start()])

    let next_id = 1
    const acked: Array<{ id: number; at: number }> = []
    let writing = true
    const answers: number[] = []
    const writer = (async () => {
      while (writing) {
        const id = next_id++
        const res = await a.api('/api/v1/t/default/query', { json: { query: 'insert items {id: $id, v: 0}', params: { id } }, signal: AbortSignal.timeout(20_000) }).catch(() => null)
        if (res?.status === 200) acked.push({ id, at: Date.now() })
        else if (res !== null) answers.push(res.status)
        if (res?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 10))
      }
    })()
    while (acked.length < 30) await new Promise((resolve) => setTimeout(resolve, 10))

    proxy.cut()
    const cut_at = Date.now()
    const { node: successor, status } = await waitForPrimary([b, c], { above_term: 1 })
    const acked_in_cut = acked.filter((x) => x.at > cut_at)
    if (mode === 'sync') {
      // Keep writing until the old primary has refused a few, then look at the stream.
      while (answers.filter((s) => s === 503).length < 3) await new Promise((resolve) => setTimeout(resolve, 10))
      t.equal((await a.status())?.role, 'fenced', 'the cut-off primary reports itself fenced')
      writing = false
      await writer
      const record = (await readClusterStream(nats.url, 'test')).find((m) => m.kind === 'term' && m.term === status.term)
      t.ok(record !== undefined, `the stream holds term ${status.term}'s record`)
      const last_ack = Math.max(...acked.map((x) => x.at))
      t.ok(last_ack < (record?.at_ms ?? 0), `the last acknowledgement from the cut-off primary (${last_ack - cut_at} ms after the cut) came before ${successor.name} began term ${status.term} (${Math.round((record?.at_ms ?? 0) - cut_at)} ms after the cut)`)
      t.ok(answers.every((s) => s === 503), `every write it did not acknowledge was refused with 503 (${[...new Set(answers)].join(',')})`)
    } else {
      // The async primary goes on acknowledging while cut off.
      while (acked.filter((x) => x.at > cut_at).length < 20) await new Promise((resolve) => setTimeout(resolve, 10))
      writing = false
      await writer
      t.ok(acked.filter((x) => x.at > cut_at).length >= 20, 'the cut-off async primary acknowledged writes after the cut')
    }
    t.comment(`${acked_in_cut.length} acknowledged between the cut and the takeover`)

    const before = a.output.length
    proxy.heal()
    // The old primary finds it lost its term, restarts as a follower (re-seeded if it must) and catches up.
    let rejoined = null
    while (rejoined?.role !== 'follower' || rejoined.primary !== successor.origin) {
      rejoined = await a.status()
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    t.pass(`the old primary rejoined as a follower of ${successor.name}`)
    const head = (await successor.status())?.applied_lsn ?? 0
    await waitForLsn([a, b, c], head)
    const rows = (n: ClusterNode) => n.ids()
    const cluster_rows = await rows(successor)
    for (const n of [a, b, c]) t.same(await rows(n), cluster_rows, `node ${n.name} holds the cluster's rows`)
    const held = new Set(cluster_rows)
    const lost = acked.filter((x) => !held.has(x.id)).map((x) => x.id)
    const aside = readdirSync(dirname(a.dir)).filter((name) => name.startsWith(`${basename(a.dir)}.diverged-`))
    if (mode === 'sync') {
      t.same(lost, [], 'no acknowledged write was lost')
    } else {
      t.ok(lost.length >= 20, `the writes the async primary acknowledged while cut off are not the cluster's (${lost.length})`)
      t.match(a.output.slice(before), /moved aside/, 'the old primary said it moved its directory aside')
      t.equal(aside.length, 1, 'its directory was moved aside, not deleted')
      const moved = join(dirname(a.dir), aside[0] as string)
      const info = JSON.parse(readFileSync(join(moved, 'diverged.json'), 'utf8'))
      t.match(info, { cluster: 'test', node: 'a' }, 'diverged.json names the node and cluster')
      const frames = readFileSync(join(moved, 'diverged.frames'))
      t.equal(frames.subarray(0, 8).toString(), 'TDBDIVG1', 'diverged.frames begins with its magic')
      const lsns: number[] = []
      for (let at = 8; at < frames.length;) {
        lsns.push(Number(frames.readBigUInt64LE(at)))
        at += 12 + frames.readUInt32LE(at + 8)
      }
      t.equal(lsns[0], info.common_lsn + 1, 'the frames begin after the last LSN the node shares with the cluster')
      t.equal(lsns.at(-1), info.head_lsn, 'and end at the node\'s head')
      t.ok(lsns.length >= lost.length, `every write the cluster lost is among the ${lsns.length} frames set aside`)
      t.same((await verifyDirectory(moved)).problems, [], 'the moved directory verifies clean')
    }
    if (mode === 'sync' && aside.length > 0) t.comment('the old primary held frames never acknowledged (refused writes) and was re-seeded')
    for (const n of [a, b, c]) t.equal(await n.stop(), 0, `node ${n.name} stops cleanly`)
    for (const n of [a, b, c]) t.same((await verifyDirectory(n.dir)).problems, [], `verify is clean on node ${n.name}`)
  })
}
