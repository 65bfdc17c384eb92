// Replica equality (docs/replication.md, "Followers"; R17 in docs/architecture.md): a
// real nats-server and real `tenantdb serve --nats` nodes. Concurrent writers, tenant
// operations (create, snapshot, fork from a snapshot and from a head, suspend, resume,
// delete of a snapshot and of a tenant), auto ids and atomic blocks on the primary,
// while one follower is killed with SIGKILL and restarted mid-stream and a new node
// joins with an empty directory (copying the primary's backup while writes go on).
// Every follower reaches the primary's LSN and answers every read alike: the tenants,
// every collection's rows, every tenant's change tail from the start (so the restarted
// follower neither skipped nor repeated a frame), a diff from a snapshot, a read under
// `Service-Snapshot`. A follower refuses writes and tenant operations with 421
// `not_primary` naming the primary; `verify` is clean on every directory after a
// clean stop.
import t from 'tap'
import { verifyDirectory } from '../src/database/index.js'
import { ClusterNode, waitForLsn, waitForPrimary, writeSchema } from './helpers/cluster.js'
import { startNatsServer } from './helpers/nats-server.js'
import { rng } from './helpers/rng.js'

const schema = 'collection items { id: int primary, v: int, tag: string? }\ncollection notes { text: string }\n'
const writers = 4
const writes_per_writer = 60

t.test('every follower holds what the primary holds, across a follower\'s kill -9 and a new node', async (t) => {
  const nats = await startNatsServer(t)
  const file = writeSchema(t, schema)
  const node = (name: string) => new ClusterNode(t, { name, nats: () => nats.url, schema: file, leaseMs: 2000 })
  const a = node('a')
  await a.start()
  await waitForPrimary([a])
  const [b, c] = [node('b'), node('c')]
  await Promise.all([b.start(), c.start()])
  const d = node('d')
  const query = (tenant: string, text: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    a.api(`/api/v1/t/${tenant}/query`, { json: { query: text, params }, headers })
  const ops = (body: Record<string, unknown>) => a.api(`/api/v1/t/${String(body.name ?? 'default').split('@')[0]}/ops`, { json: body })

  for (const name of ['t1', 't2']) t.equal((await ops({ op: 'create', name })).status, 200, `tenant ${name} created`)

  let next_id = 1
  let refused_503 = 0
  let restarted = false
  let joined = false
  const write = async (writer: number) => {
    const random = rng(writer + 17)
    for (let i = 0; i < writes_per_writer; i++) {
      const tenant = ['default', 't1', 't2'][Math.floor(random() * 3)] as string
      const r = random()
      let res
      if (r < 0.4) {
        const id = next_id++
        res = await query(tenant, 'insert items $row', { row: { id, v: writer, tag: `w${writer}` } })
      } else if (r < 0.6) {
        const ids = [next_id++, next_id++]
        res = await query(tenant, 'atomic { insert items $a; insert items $b; insert notes {text: $t} }', { a: { id: ids[0], v: 0 }, b: { id: ids[1], v: 1 }, t: `block ${ids.join(',')}` })
      } else if (r < 0.8) {
        res = await query(tenant, 'items | where v == $v | update {v: v + 10}', { v: writer })
      } else if (r < 0.9) {
        res = await query(tenant, 'insert notes {text: $t}', { t: `note ${writer}/${i}` })
      } else {
        res = await query(tenant, 'items | where id == $id | delete', { id: Math.floor(random() * next_id) })
      }
      // A suspended tenant (below) refuses writes; anything else must go through, or lose a race
      // (or, on a machine so loaded that the primary could not renew its lease in time, be refused with 503).
      if (res.status === 503 && res.body.code === 'not_primary') refused_503++
      else if (res.status !== 200 && res.body.code !== 'tenant_suspended' && res.body.code !== 'conflict') t.fail(`write answered ${res.status} ${JSON.stringify(res.body)}`)
      if (writer === 0 && i === 20 && !restarted) {
        restarted = true
        await c.kill9()
        await c.start()
      }
      if (writer === 1 && i === 30 && !joined) {
        joined = true
        await d.start()
      }
    }
  }
  const tenant_ops = async () => {
    const steps: Array<Record<string, unknown>> = [
      { op: 'snapshot', name: 't1', target: 's1' },
      { op: 'fork', name: 't1@s1', target: 'f1' },
      { op: 'snapshot', name: 't2', target: 's2' },
      { op: 'fork', name: 't2', target: 'f2' },
      { op: 'suspend', name: 't2' },
      { op: 'resume', name: 't2' },
      { op: 'delete', name: 't2@s2' },
      { op: 'create', name: 'gone' },
      { op: 'delete', name: 'gone' },
    ]
    for (const step of steps) {
      const res = await ops(step)
      t.equal(res.status, 200, `${JSON.stringify(step)}: ${JSON.stringify(res.body)}`)
      await new Promise((resolve) => setTimeout(resolve, 30))
    }
  }
  await Promise.all([...Array.from({ length: writers }, (_, w) => write(w)), tenant_ops()])
  t.ok(restarted && joined, 'a follower was restarted and a node joined mid-stream')
  t.ok(refused_503 < writers * writes_per_writer / 10, `few writes refused while the primary could not renew its lease in time (${refused_503})`)

  const head = (await a.status())?.applied_lsn ?? 0
  const nodes = [a, b, c, d]
  await waitForLsn(nodes, head)

  const read = async (n: ClusterNode) => {
    const tenants = (await n.api('/api/v1/tenants')).body.tenants as Array<{ name: string }>
    const out: Record<string, unknown> = { tenants }
    for (const { name } of tenants) {
      for (const collection of ['items', 'notes']) {
        out[`${name}/${collection}`] = (await n.api(`/api/v1/t/${name}/query`, { json: { query: `${collection}` } })).body.rows
      }
      const events = []
      for (let after = 0; ;) {
        const page = (await n.api(`/api/v1/t/${name}/tail?after=${after}&limit=1000`)).body
        events.push(...page.events)
        if (page.events.length === 0) break
        after = page.last_lsn
      }
      out[`${name}/tail`] = events
      out[`${name}/snapshots`] = (await n.api(`/api/v1/t/${name}/snapshots`)).body
    }
    out['t1/diff'] = (await n.api('/api/v1/t/t1/diff?from=s1')).body
    out['t1@s1'] = (await n.api('/api/v1/t/t1/query', { json: { query: 'items' }, headers: { 'service-snapshot': 's1' } })).body.rows
    return out
  }
  const expected = await read(a)
  t.ok((expected['default/tail'] as unknown[]).length > 20, 'the primary\'s tail holds the writes')
  t.ok((expected['t1/diff'] as { collections: Record<string, unknown> }).collections !== undefined, 'the diff from the snapshot answers')
  for (const follower of [b, c, d]) t.same(await read(follower), expected, `follower ${follower.name} answers every read as the primary`)
  // The tail of the restarted follower is exactly-once: no LSN twice, ascending.
  const lsns = ((await read(c))['default/tail'] as Array<{ lsn: number }>).map((e) => e.lsn)
  t.same(lsns, [...lsns].sort((x, y) => x - y).filter((x, i, all) => i === 0 || all[i - 1] !== x), 'the restarted follower\'s tail has no duplicate and is in order')

  const refused = await b.api('/api/v1/t/default/query', { json: { query: 'insert items {id: 999999, v: 1}' } })
  t.equal(refused.status, 421, 'a write to a follower: 421')
  t.match(refused.body, { code: 'not_primary', primary: a.origin, outcome: 'not_written' }, 'naming the primary')
  const refused_op = await b.api('/api/v1/t/default/ops', { json: { op: 'create', name: 'nope' } })
  t.equal(refused_op.status, 421, 'a tenant operation on a follower: 421')
  t.equal(refused_op.body.primary, a.origin)
  t.equal((await b.api('/api/v1/t/default/query', { json: { query: 'items | count' } })).status, 200, 'a read on a follower answers')
  const metrics = await b.api('/api/v1/metrics')
  t.match(metrics.body, /tenantdb_replication_role\{role="follower"\} 1/, 'the metrics say the role')
  t.match(metrics.body, /tenantdb_replication_applied_lsn \d+/, 'and the applied LSN')

  for (const n of nodes) t.equal(await n.stop(), 0, `node ${n.name} stops cleanly`)
  for (const n of nodes) t.same((await verifyDirectory(n.dir)).problems, [], `verify is clean on node ${n.name}`)
})
