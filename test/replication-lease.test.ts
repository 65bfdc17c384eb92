// The primary's lease renewal (src/replication/lease.ts; docs/replication.md, "The
// lease"), against a real nats-server. Two ways a live primary could lose its lease to
// a follower while nothing is wrong with it:
//
// - conflict: a renewal whose answer came too late was still written, so the key holds
//   the holder's own value at a newer revision and the next renewal's compare-and-set
//   fails. The holder must renew from that revision (it is its own), and must still
//   give the lease up when another node's value is there.
// - timing: a renewal must not wait longer than a lease for its answer. A follower
//   counts a lease from its first read after an outage; a holder stuck for the whole
//   request timeout (2 s) once NATS was back would let that count run out (CI saw a
//   follower take the lease of a live async primary this way after a NATS restart).
import t, { type Test } from 'tap'
import { Lease } from '../src/replication/lease.js'
import { lease_key } from '../src/replication/names.js'
import { NatsLink } from '../src/replication/nats-link.js'
import { startNatsServer } from './helpers/nats-server.js'
import { pollUntil } from './helpers/poll.js'
import { startTcpProxy } from './helpers/tcp-proxy.js'

const lease_ms = 1000

async function open(t: Test, url: string, node: string): Promise<NatsLink> {
  const link = await NatsLink.open({ servers: [url], credentialsFile: undefined, cluster: 'lease', node, replicas: 1 })
  t.teardown(() => link.close())
  return link
}

/** Takes the free lease for `node`. */
async function holder(link: NatsLink, node: string): Promise<Lease> {
  const lease = new Lease(link, node, lease_ms)
  const view = await lease.read()
  if (!view.expired) throw new Error(`the lease is not free: ${JSON.stringify(view)}`)
  if (!(await lease.take(view, { term: (view.value?.term ?? 0) + 1, node, url: `http://${node}` }))) throw new Error('take failed')
  return lease
}

async function revision(link: NatsLink): Promise<number> {
  return (await link.kv.get(lease_key))?.revision ?? 0
}

t.test('conflict: a renewal written after its answer timed out is the holder\'s own', async (t) => {
  const nats = await startNatsServer(t)
  const a = await open(t, nats.url, 'a')
  const other = await open(t, nats.url, 'other')
  const lease = await holder(a, 'a')
  const value = lease.held
  const before = await revision(a)
  // What a late renewal leaves: the holder's own value, one revision on.
  await other.kv.update(lease_key, Buffer.from(JSON.stringify(value)), before)
  t.equal(await lease.renew(), 'renewed', 'the holder renews from the revision its late renewal wrote')
  t.same(lease.held, value, 'and still holds the same term')
  t.ok(lease.writable(), 'and takes writes')
  t.equal(await revision(a), before + 2, 'the key moved on by the late renewal and the new one')
  t.equal(await lease.renew(), 'renewed', 'the next renewal finds its own revision')

  // Another node's value at a newer revision: lost, whatever the holder renewed before.
  await other.kv.update(lease_key, Buffer.from(JSON.stringify({ term: (value?.term ?? 0) + 1, node: 'b', url: 'http://b' })), await revision(a))
  t.equal(await lease.renew(), 'lost', 'a lease another node took is lost')
  t.equal(lease.held, null, 'and no longer held')
  t.notOk(lease.writable(), 'so it takes no writes')
})

t.test('conflict: a released lease is not taken back by a renewal', async (t) => {
  const nats = await startNatsServer(t)
  const a = await open(t, nats.url, 'a')
  const other = await open(t, nats.url, 'other')
  const lease = await holder(a, 'a')
  await other.kv.update(lease_key, Buffer.from(JSON.stringify({ term: lease.held?.term, node: '', url: '' })), await revision(a))
  t.equal(await lease.renew(), 'lost', 'the same term with an empty node is not the holder\'s value')
  t.equal(lease.held, null)
})

t.test('timing: a renewal never waits a whole lease for NATS', async (t) => {
  const nats = await startNatsServer(t)
  const proxy = await startTcpProxy(t, () => nats.port)
  const a = await open(t, `nats://127.0.0.1:${proxy.port}`, 'a')
  const lease = await holder(a, 'a')
  const bounded = async (what: string) => {
    const outcome = await Promise.race([lease.renew(), new Promise((resolve) => setTimeout(resolve, lease_ms, 'still waiting'))])
    t.equal(outcome, 'failed', `${what}: the renewal gives up within the lease and reports a failure`)
  }
  // A silent network: the connection still looks up, but nothing answers.
  proxy.cut()
  await bounded('NATS silent')
  t.ok(lease.held !== null, 'the lease is still held (nothing says another node took it)')
  // NATS gone: once the client knows, nothing is sent at all.
  await nats.stop('SIGKILL')
  proxy.heal()
  await pollUntil(() => !a.connected, 'the link notices NATS is gone')
  await bounded('NATS gone')
  await nats.start()
  await pollUntil(() => a.connected, 'the link reconnects')
  // The renewals sent meanwhile left nothing behind to conflict with.
  let outcome = await lease.renew()
  for (let i = 0; i < 50 && outcome === 'failed'; i++) {
    await new Promise((resolve) => setTimeout(resolve, lease_ms / 5))
    outcome = await lease.renew()
  }
  t.equal(outcome, 'renewed', 'once NATS is back the holder renews the lease it held')
  t.ok(lease.writable(), 'and takes writes again')
})
