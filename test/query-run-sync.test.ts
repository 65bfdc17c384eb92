// A prepared insert's `runSync` (docs/api.md, "Prepared statements"; docs/architecture.md,
// "Synchronous commits"): it answers what `run()` answers, durable and readable the
// moment it returns, with no await; mixed with asynchronous writers, every commit takes
// an LSN of its own and the change feed hears each once, in LSN order; a duplicate
// key, a statement it does not run, a write its tenant's budget would make wait, a
// suspended tenant, a replicated database and a closed one are refused with a clear
// error and write nothing.
import t from 'tap'
import type { Value } from '../src/lang/ast.js'
import { internalsOf } from '../src/database/internals.js'
import { openDatabase } from './helpers/database.js'

const schema = 'collection kv { k: string primary, n: int, v: string? }'

t.test('runSync answers what run() answers, durable and readable when it returns', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  const insert = await kv.prepare('insert kv {k: $k, n: $n}')
  const read = await kv.prepare('kv | get $k')
  const asynchronous = await insert.run({ k: 'a', n: 1 })
  const synchronous = insert.runSync({ k: 'b', n: 2 })
  t.same(synchronous.columns, asynchronous.columns)
  t.same(synchronous.rows, [[1]], 'one row written')
  t.equal(synchronous.lsn, (asynchronous.lsn as number) + 1, 'the next LSN')
  t.same(read.get({ k: 'b' }), { k: 'b', n: 2, v: null }, 'read on the same stack, no await between')
  const returning = await kv.prepare('upsert kv {k: $k, n: $n, v: "x"} returning k, n')
  t.same(returning.runSync({ k: 'b', n: 5 }).rows, [['b', 5]], 'an upsert with returning')
  t.same(read.get({ k: 'b' }), { k: 'b', n: 5, v: 'x' })
  const lsns = Array.from({ length: 50 }, (_, i) => insert.runSync({ k: `s${i}`, n: i }).lsn as number)
  t.ok(lsns.every((lsn, i) => i === 0 || lsn === (lsns[i - 1] as number) + 1), 'back to back: consecutive LSNs')
  t.equal((await kv.query('kv | count')).rows[0]?.[0], 52)
})

t.test('mixed with asynchronous writers: one LSN each, every one heard once in LSN order', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  const heard: number[] = []
  const subscription = kv.subscribe({}, (event) => { heard.push(event.lsn) })
  t.teardown(() => subscription.close())
  const insert = await kv.prepare('insert kv {k: $k, n: $n}')
  const pending: Array<Promise<{ lsn?: number }>> = []
  const order: Array<{ kind: 'async' | 'sync'; lsn: () => number | undefined }> = []
  for (let round = 0; round < 40; round += 1) {
    // Asynchronous ones queued (some already in the storage core's hands), then one on this thread.
    for (let i = 0; i < 3; i += 1) {
      const p = insert.run({ k: `a${round}-${i}`, n: i })
      pending.push(p)
      let lsn: number | undefined
      void p.then((r) => { lsn = r.lsn })
      order.push({ kind: 'async', lsn: () => lsn })
    }
    const lsn = insert.runSync({ k: `s${round}`, n: round }).lsn
    order.push({ kind: 'sync', lsn: () => lsn })
    if (round % 4 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  await Promise.all(pending)
  const lsns = order.map((o) => o.lsn() as number)
  // (A run() queues its commit only after a microtask or more; a runSync commits
  // before it returns, after whatever the storage core was already given.)
  const synchronous = order.filter((o) => o.kind === 'sync').map((o) => o.lsn() as number)
  t.ok(synchronous.every((lsn, i) => i === 0 || lsn > (synchronous[i - 1] as number)), 'runSync\'s LSNs rise in call order')
  t.equal(new Set(lsns).size, 160, 'every commit took an LSN of its own')
  await new Promise((resolve) => setTimeout(resolve, 50))
  const ours = heard.filter((lsn) => lsns.includes(lsn))
  t.same(ours, [...lsns].sort((a, b) => a - b), 'the change feed heard every commit once, in LSN order')
  t.ok(heard.every((lsn, i) => i === 0 || lsn > (heard[i - 1] as number)), 'and nothing out of order')
  t.equal((await kv.query('kv | count')).rows[0]?.[0], 160, 'every row is there')
})

t.test('what runSync does not do is refused with a clear error and writes nothing', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  const insert = await kv.prepare('insert kv {k: $k, n: $n}')
  insert.runSync({ k: 'a', n: 1 })
  const head = () => internalsOf(db).committer.head().lsn
  const before = head()
  t.throws(() => insert.runSync({ k: 'a', n: 2 }), { code: 'constraint_violation' }, 'a duplicate key, as run() refuses it')
  t.rejects(insert.run({ k: 'a', n: 2 }), { code: 'constraint_violation' }, 'run() refuses it the same')
  t.throws(() => insert.runSync({ k: 'b', n: 'x' as unknown as Value }), { code: 'type_error' }, 'a value of the wrong type')
  const update = await kv.prepare('kv | where k == $k | update {n: 9}')
  t.throws(() => update.runSync({ k: 'a' }), { code: 'not_allowed_here', message: /inserts and upserts.*run\(\)/ }, 'an update runs with run()')
  const read = await kv.prepare('kv | get $k')
  t.throws(() => read.runSync({ k: 'a' }), { code: 'not_allowed_here' }, 'a read is not a write')
  t.equal(head(), before, 'nothing was written')

  await db.ops({ op: 'create', name: 'slow' })
  await db.ops({ op: 'limit', name: 'slow', limits: { commits_per_s: 1 } })
  const slow = await db.tenant('slow').prepare('insert kv {k: $k, n: $n}')
  const refusals: string[] = []
  for (let i = 0; i < 5; i += 1) {
    try {
      slow.runSync({ k: `k${i}`, n: i })
    } catch (err) {
      refusals.push((err as { code: string }).code)
    }
  }
  t.ok(refusals.length > 0 && refusals.every((code) => code === 'rate_limited'), `over its commit budget: refused at once, never waited (${refusals.join(', ')})`)
  t.equal((await db.tenant('slow').query('kv | count')).rows[0]?.[0], 5 - refusals.length, 'only the admitted ones wrote')

  await db.ops({ op: 'create', name: 'paused' })
  const paused = await db.tenant('paused').prepare('insert kv {k: $k, n: $n}')
  await db.ops({ op: 'suspend', name: 'paused' })
  t.throws(() => paused.runSync({ k: 'z', n: 0 }), { code: 'tenant_suspended' }, 'a suspended tenant')
})

t.test('a replicated database refuses runSync: its acknowledgement waits for the stream', async (t) => {
  const { db } = await openDatabase(t, schema)
  const kv = db.tenant('default')
  const insert = await kv.prepare('insert kv {k: $k, n: $n}')
  const { committer } = internalsOf(db)
  // The gate replication sets on a primary (src/replication/): it admits every commit
  // and acknowledges once the stream has it.
  committer.setGate({ admit: () => {}, acknowledged: async () => {} }, () => {})
  const before = committer.head().lsn
  t.throws(() => insert.runSync({ k: 'a', n: 1 }), { code: 'not_allowed_here', message: /replicates; use run\(\)/ })
  t.equal(committer.head().lsn, before, 'nothing written')
  t.equal((await insert.run({ k: 'a', n: 1 })).rows[0]?.[0], 1, 'run() commits')
})

t.test('a closed database refuses runSync', async (t) => {
  const { db } = await openDatabase(t, schema)
  const insert = await db.tenant('default').prepare('insert kv {k: $k, n: $n}')
  await db.close()
  t.throws(() => insert.runSync({ k: 'a', n: 1 }), { code: 'closed' })
})
