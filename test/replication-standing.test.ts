// Where a directory stands against its cluster's stream (docs/replication.md,
// "Rejoining"), decided from the node's term history and a real JetStream stream the
// test writes itself: follow from the right sequence, ahead (frames of the stream's
// newest term past its end), diverged (with the last shared LSN), behind (the stream
// dropped what the node needs); the fence of the stream (a publish naming an old
// sequence is refused); the term history file refused when damaged; the lease taken,
// renewed, lost and released between two nodes' links; messages this version did not
// write refused; a follower on a real database stopping at a gap and at another
// database's frame, and ignoring a fenced primary's late frame.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { readClusterState, termOf, withTerm, writeClusterState, ClusterStateError, type ClusterState } from '../src/replication/cluster-state.js'
import { Lease } from '../src/replication/lease.js'
import { NatsLink } from '../src/replication/nats-link.js'
import { decodeMessage, encodeData, encodeHeaders, StreamMessageError, type StreamMessage } from '../src/replication/messages.js'
import { Follower } from '../src/replication/follower.js'
import { Database } from '../src/database/index.js'
import type { MsgHdrs } from '@nats-io/transport-node'
import { standing } from '../src/replication/standing.js'
import { StreamFencedError, WalStream } from '../src/replication/wal-stream.js'
import { startNatsServer } from './helpers/nats-server.js'
import { pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'

const database = 'db0'
const frame = (lsn: number, term: number, node = 'a'): StreamMessage => ({ kind: 'frame', database, term, lsn, node, at_ms: 0, payload: Buffer.from([lsn]) })
const record = (term: number, lsn: number, node = 'a'): StreamMessage => ({ kind: 'term', database, term, lsn, node, at_ms: 0, url: `http://${node}` })
const state = (terms: Array<[number, number]>, base_lsn = 0): ClusterState => ({ format: 1, cluster: 'c', database, base_lsn, terms: terms.map(([term, first_lsn]) => ({ term, first_lsn })) })

async function link(t: Test, url: string, cluster: string, node = 'x'): Promise<NatsLink> {
  const opened = await NatsLink.open({ servers: [url], credentialsFile: undefined, cluster, node, replicas: 1 })
  t.teardown(() => opened.close())
  return opened
}

t.test('standing against the stream', async (t) => {
  const nats = await startNatsServer(t)
  const linked = await link(t, nats.url, 's1')
  const stream = new WalStream(linked)
  await stream.ensure(1)
  await stream.ensure(1)
  t.same(await standing(stream, state([]), 0), { kind: 'follow', from_seq: 1, stream_term: 0 }, 'an empty stream: follow from its first message')

  let seq = 0
  const append = async (message: StreamMessage) => { seq = await stream.publish(message, seq) }
  await append(record(1, 0))
  for (let lsn = 1; lsn <= 5; lsn++) await append(frame(lsn, 1))
  t.same(await standing(stream, state([[1, 1]]), 3), { kind: 'follow', from_seq: 5, stream_term: 1 }, 'behind the end: from the frame after the head')
  t.same(await standing(stream, state([[1, 1]]), 5), { kind: 'follow', from_seq: 7, stream_term: 1 }, 'at the end: from the next message')
  t.same(await standing(stream, state([[1, 1]]), 7), { kind: 'ahead', from_seq: 7, stream_lsn: 5, stream_term: 1 }, 'frames of the newest term past the end: ahead')
  t.same(await standing(stream, state([], 4), 4), { kind: 'follow', from_seq: 6, stream_term: 1 }, 'frames from a backup are not compared')
  t.equal((await stream.frame(3))?.seq, 4, 'a frame found by LSN')
  t.equal(await stream.frame(9), null, 'and none past the end')

  await t.rejects(stream.publish(frame(6, 1), seq - 1), StreamFencedError, 'a publish naming an older sequence is refused')
  t.equal(await stream.publish(frame(5, 1), seq - 1), seq, 'a frame published again is the one the stream holds (its message id)')

  await append(record(2, 5, 'b'))
  for (let lsn = 6; lsn <= 8; lsn++) await append(frame(lsn, 2, 'b'))
  t.match(await standing(stream, state([[1, 1]]), 7), { kind: 'diverged', common_lsn: 5 }, 'frames of a superseded term: diverged after the last shared LSN')
  t.match(await standing(stream, state([[1, 1]]), 10), { kind: 'diverged', common_lsn: 5 }, 'also past the end')
  t.same(await standing(stream, state([[1, 1], [2, 6]]), 7), { kind: 'follow', from_seq: 10, stream_term: 2 }, 'the same terms: follow')
  t.same(await standing(stream, state([[1, 1]]), 5), { kind: 'follow', from_seq: 7, stream_term: 2 }, 'from the term record that begins after the head')

  // The stream's limits dropping its oldest messages, as purging them below sequence 5 does.
  await linked.jsm.streams.purge(linked.names.stream, { seq: 5 })
  t.match(await standing(stream, state([[1, 1]]), 2), { kind: 'behind' }, 'the stream dropped the node\'s newest frame: behind')
  t.match(await standing(stream, state([], 2), 2), { kind: 'behind' }, 'the stream dropped the frames the node needs next: behind')
})

t.test('the term history', async (t) => {
  const dir = tempDir(t)
  t.equal(await readClusterState(dir), null, 'none: not part of a cluster')
  const s = withTerm(withTerm(state([], 10), 3, 11), 5, 20)
  t.equal(withTerm(s, 5, 30), s, 'the newest term again: unchanged')
  t.throws(() => withTerm(s, 4, 40), /terms only grow/)
  await writeClusterState(dir, s)
  t.same(await readClusterState(dir), s, 'read back as written')
  t.same([10, 11, 19, 20, 99].map((lsn) => termOf(s, lsn)), [null, 3, 3, 5, 5], 'the term of each frame')
  t.equal(termOf(state([[2, 5]]), 4), null, 'before every entry: unknown')
  for (const bad of ['{', '{"format":2}', JSON.stringify({ ...s, terms: [{ term: 5, first_lsn: 1 }, { term: 3, first_lsn: 2 }] })]) {
    const other = mkdtempSync(join(dir, 'bad-'))
    writeFileSync(join(other, 'replication.json'), bad)
    await t.rejects(readClusterState(other), ClusterStateError, bad)
  }
})

t.test('the lease between two nodes', async (t) => {
  const nats = await startNatsServer(t)
  const [a, b] = [await link(t, nats.url, 'l1', 'a'), await link(t, nats.url, 'l1', 'b')]
  const lease_ms = 2000
  const la = new Lease(a, 'a', lease_ms)
  const lb = new Lease(b, 'b', lease_ms)
  const fresh = await la.read()
  t.match(fresh, { value: null, revision: 0, expired: true }, 'never held: free')
  t.ok(await la.take(fresh, { term: 1, node: 'a', url: 'http://a' }), 'a takes it')
  t.ok(la.writable(), 'and may take writes')
  t.notOk(await lb.take(fresh, { term: 1, node: 'b', url: 'http://b' }), 'b, with the same view, loses the race')
  const seen = await lb.read()
  t.match(seen, { value: { term: 1, node: 'a' }, expired: false }, 'b sees a\'s lease, not expired')
  t.equal(await la.renew(), 'renewed')
  t.notOk(await lb.take(seen, { term: 2, node: 'b', url: 'http://b' }), 'a take with a revision a renewal replaced fails')
  // a stops renewing: b times the revision it sees, and takes it once a whole lease passed.
  let view = await lb.read()
  await pollUntil(() => !la.writable(), 'a to stop taking writes')
  t.notOk((await lb.read()).expired, 'a stopped taking writes (half a lease after its renewal) before b may take the lease')
  for (;;) {
    view = await lb.read()
    if (view.expired) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.ok(await lb.take(view, { term: 2, node: 'b', url: 'http://b' }), 'b takes the expired lease for the next term')
  t.equal(await la.renew(), 'lost', 'a\'s next renewal finds it lost')
  t.equal(la.held, null)
  await lb.release()
  t.match(await la.read(), { value: { term: 2, node: '' }, expired: true }, 'released: free at once, the term kept')
  const restarted = new Lease(b, 'b', lease_ms)
  const again = await la.take(await la.read(), { term: 3, node: 'a', url: 'http://a' }) && await restarted.read()
  t.match(again, { value: { node: 'a' }, expired: false }, 'held by another node: not expired')
  t.match(await new Lease(a, 'a', lease_ms).read(), { expired: true }, 'held by this node\'s former process: free to take at once')
})

t.test('stream messages this version did not write are refused', async (t) => {
  const good = encodeHeaders(record(3, 7))
  t.match(decodeMessage(1, good, encodeData(record(3, 7))), { kind: 'term', term: 3, lsn: 7, url: 'http://a' }, 'a term record reads back')
  const without = (name: string, value = '') => {
    const h = encodeHeaders(frame(1, 1))
    h.set(name, value)
    return h
  }
  const cases: Array<[string, MsgHdrs | undefined, Uint8Array]> = [
    ['no headers', undefined, new Uint8Array()],
    ['no Tenantdb-Node', without('Tenantdb-Node'), new Uint8Array()],
    ['Tenantdb-Lsn is not a whole number', without('Tenantdb-Lsn', '-1'), new Uint8Array()],
    ['Tenantdb-At is not a number', without('Tenantdb-At', 'soon'), new Uint8Array()],
    ['unknown kind', without('Tenantdb-Kind', 'chunk'), new Uint8Array()],
    ['a term record whose data is not JSON', good, Buffer.from('{')],
    ['a term record without its url', good, Buffer.from('{}')],
  ]
  for (const [what, h, data] of cases) t.throws(() => decodeMessage(9, h, data), { constructor: StreamMessageError, message: new RegExp(what.replace(/[()]/g, '\\$&')) }, what)
})

t.test('a follower stops at a gap, at another database\'s frame, and ignores a fenced primary\'s late frame', async (t) => {
  const nats = await startNatsServer(t)
  const dir = tempDir(t)
  const primary = await Database.open(join(dir, 'primary'))
  t.teardown(() => primary.close())
  for (let i = 0; i < 4; i++) await primary.ops({ op: 'create', name: `t${i}` })
  const frames = await primary.replica.frames(0, 100, 1 << 20)
  t.ok(frames.length >= 5, `${frames.length} frames of a real primary`)
  const run = async (name: string, messages: StreamMessage[]) => {
    const linked = await link(t, nats.url, name)
    const stream = new WalStream(linked)
    await stream.ensure(1)
    let seq = 0
    for (const m of messages) seq = await stream.publish(m, seq)
    const db = await Database.open(join(dir, name), { follower: true })
    t.teardown(() => db.close())
    let diverged: string | null = null
    const recorded: number[] = []
    const follower = new Follower({
      link: linked, replica: db.replica, database, from_seq: 1, term: 0, termOf: () => null,
      recordTerm: async (term) => { recorded.push(term) },
      diverged: (reason) => { diverged = reason },
    })
    return { db, follower, seq, reason: () => diverged, recorded }
  }
  const as = (f: { lsn: number; payload: Buffer }, term: number, over: Partial<StreamMessage> = {}): StreamMessage => ({ ...frame(f.lsn, term), payload: f.payload, ...over }) as StreamMessage
  const [f1, f2, f3, f4] = frames as [typeof frames[0], typeof frames[0], typeof frames[0], typeof frames[0]]

  const gap = await run('gap', [record(1, 0), as(f1, 1), as(f2, 1), as(f4, 1)])
  await pollUntil(() => gap.reason() !== null, 'the follower to stop at the gap')
  t.match(gap.reason(), /the stream's next frame is 4, this node's next LSN is 3/)
  t.equal(gap.db.replica.headLsn(), 2, 'the frames before the gap were applied')
  await gap.follower.stop()

  const foreign = await run('foreign', [as(f1, 1, { database: 'other' })])
  await pollUntil(() => foreign.reason() !== null, 'the follower to stop at another database\'s frame')
  t.match(foreign.reason(), /of database other/)
  await foreign.follower.stop()

  // (The stream's fence keeps such a frame out; published here past it to see the follower ignore it.)
  const late = await run('late', [record(1, 0), as(f1, 1), record(2, 1, 'b'), as(f4, 1), as(f2, 2, { node: 'b' }), as(f3, 2, { node: 'b' })])
  await late.follower.until(late.seq)
  t.equal(late.db.replica.headLsn(), 3, 'the new term\'s frames applied')
  t.equal(late.follower.ignored_frames, 1, 'the old term\'s late frame ignored')
  t.same(late.recorded, [1, 2], 'each term recorded before its frames')
  t.equal(late.follower.lag().frames, 0, 'caught up: no lag')
  t.ok(late.follower.lagSamples().length === 3, 'a lag sample per applied frame')
  await late.follower.stop()
})
