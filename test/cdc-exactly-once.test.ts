// R12 (docs/architecture.md, "Testing", "Claims and the tests that back them"): the
// change tail is exactly-once across restarts. Polled in pages of random sizes, with
// the engine closed and reopened in the middle several times and each consumer
// resuming from its last `last_lsn`, the union of events is
// exactly the committed transactions of the tenant: in LSN order, no gaps, no
// duplicates. And a live subscription sees every commit made concurrently by several
// writers once, in order, whatever its pace, and resumes across a restart the same way.
// The restarts here are clean closes of the engine in-process; kill -9 of the real
// server, with consumers over HTTP and WebSocket, is test/crash-tail-kill9.test.ts.
//
//   TENANTDB_CDC_SEED   seed of the polling test's writes and page sizes (default fixed;
//                       printed, and named in the failing assertions)
import t from 'tap'
import type { Test } from 'tap'
import { rng } from './helpers/rng.js'
import { CommitNotifier, pollTail, subscribe, type Subscription, type TailChange, type TailEvent } from '../src/cdc/index.js'
import { Engine, type EngineOptions } from '../src/engine/index.js'
import { buildSchemaIR, fingerprint } from '../src/schema/index.js'
import { internalsOf } from '../src/database/internals.js'
import { tail_wait_ms_max } from '../src/limits.js'
import { openDatabase } from './helpers/database.js'
import { pollUntil } from './helpers/poll.js'
import { openRunner } from './helpers/query-runner.js'
import { tempDir } from './helpers/temp-dir.js'

const schema = `collection items { id: int primary, v: int, tag: string = "x" }
  collection notes { id: int primary, text: string }`

async function open(t: Test, dir: string, options: EngineOptions = {}) {
  const ir = buildSchemaIR([{ name: 'schema.eel', source: schema }])
  const engine = await Engine.open(dir, options)
  const { committer, runner } = openRunner(engine, { ir, fingerprint: await fingerprint(ir) })
  const notifier = CommitNotifier.following(committer)
  t.teardown(() => engine.close())
  return { engine, committer, notifier, runner }
}

type Row = { id: number; v: number; tag: string } | { id: number; text: string }

interface Txn {
  lsn: number
  changes: TailChange[]
}

/**
 * Random write transactions over rows the generator owns (ids from `base`), with the
 * changes each must produce. Owning its rows makes the expected changes independent of
 * how concurrent writers interleave.
 */
class Writer {
  readonly #items = new Map<number, Row>()
  #next: number

  constructor(readonly random: () => number, base: number) {
    this.#next = base
  }

  /** One transaction: a single statement, or an atomic block of several. */
  next(): { text: string; changes: TailChange[] } {
    if (this.random() < 0.3) {
      const parts = Array.from({ length: 2 + Math.floor(this.random() * 3) }, () => this.#statement())
      return { text: `atomic { ${parts.map((p) => p.text).join('; ')} }`, changes: parts.flatMap((p) => p.changes) }
    }
    return this.#statement()
  }

  #statement(): { text: string; changes: TailChange[] } {
    const existing = [...this.#items.keys()]
    const pick = existing[Math.floor(this.random() * existing.length)]
    const v = Math.floor(this.random() * 1000)
    const roll = this.random()
    if (pick !== undefined && roll < 0.25) {
      const row = { ...(this.#items.get(pick) as { id: number; v: number; tag: string }), v }
      this.#items.set(pick, row)
      return { text: `items | where id == ${pick} | update {v: ${v}}`, changes: [{ collection: 'items', op: 'update', key: pick, row }] }
    }
    if (pick !== undefined && roll < 0.4) {
      this.#items.delete(pick)
      return { text: `items | where id == ${pick} | delete`, changes: [{ collection: 'items', op: 'delete', key: pick, row: null }] }
    }
    if (roll < 0.55) {
      const id = pick !== undefined && this.random() < 0.5 ? pick : this.#next++
      const op = this.#items.has(id) ? 'update' : 'insert'
      const row = { id, v, tag: 'u' }
      this.#items.set(id, row)
      return { text: `upsert items {id: ${id}, v: ${v}, tag: "u"}`, changes: [{ collection: 'items', op, key: id, row }] }
    }
    if (roll < 0.7) {
      const id = this.#next++
      return { text: `insert notes {id: ${id}, text: "n${id}"}`, changes: [{ collection: 'notes', op: 'insert', key: id, row: { id, text: `n${id}` } }] }
    }
    const rows = Array.from({ length: 1 + Math.floor(this.random() * 3) }, () => ({ id: this.#next++, v, tag: 'x' }))
    for (const row of rows) this.#items.set(row.id, row)
    return {
      text: `insert items [${rows.map((r) => `{id: ${r.id}, v: ${r.v}}`).join(', ')}]`,
      changes: rows.map((row) => ({ collection: 'items', op: 'insert', key: row.id, row })),
    }
  }
}

const shape = (e: TailEvent | Txn) => ({ lsn: e.lsn, changes: e.changes })
const onlyCollection = (txns: Txn[], collection: string) => txns
  .map((txn) => ({ lsn: txn.lsn, changes: txn.changes.filter((c) => c.collection === collection) }))
  .filter((txn) => txn.changes.length > 0)

t.test('R12: polls in random pages across restarts see each committed transaction of the tenant exactly once, in order', async (t) => {
  const seed = Number(process.env.TENANTDB_CDC_SEED ?? 0xcdc0_0012)
  const replay = `TENANTDB_CDC_SEED=${seed}`
  t.comment(`seed ${seed} (${replay} replays it)`)
  const random = rng(seed)
  const dir = tempDir(t)
  const tenants = ['a', 'b', 'c']
  const writers = new Map(tenants.map((tenant, i) => [tenant, new Writer(random, 1 + i * 1_000_000)]))
  const committed = new Map<string, Txn[]>(tenants.map((tenant) => [tenant, []]))
  // One consumer per tenant, and one more following only a's notes.
  const consumers = [...tenants.map((tenant) => ({ tenant, collection: undefined as string | undefined })), { tenant: 'a', collection: 'notes' }]
    .map((c) => ({ ...c, after: 0, events: [] as TailEvent[] }))
  const restarts = 6
  for (let round = 0; round <= restarts; round += 1) {
    // A small checkpoint threshold: checkpoints (and WAL retention decisions) happen mid-run too.
    const { engine, runner } = await open(t, dir, { checkpointWalBytes: 32 * 1024 })
    t.ok(engine.stats().current_lsn >= (committed.get('a')?.at(-1)?.lsn ?? 0), `round ${round}: nothing acknowledged was lost (${replay})`)
    for (let step = 0; step < 6; step += 1) {
      // The tenants write concurrently (their frames interleave); each tenant in order.
      await Promise.all(tenants.map(async (tenant) => {
        for (let k = Math.floor(random() * 5); k > 0; k -= 1) {
          const txn = writers.get(tenant)!.next()
          const { lsn } = await runner.run(tenant, txn.text)
          committed.get(tenant)!.push({ lsn: lsn!, changes: txn.changes })
        }
      }))
      for (const consumer of consumers) {
        for (let pages = Math.floor(random() * 3); pages > 0; pages -= 1) {
          const page = await pollTail(engine, consumer.tenant, { after: consumer.after, collection: consumer.collection, limit: 1 + Math.floor(random() * 7) })
          consumer.events.push(...page.events)
          consumer.after = page.last_lsn
        }
      }
    }
    await engine.close()
  }
  const { engine } = await open(t, dir)
  for (const consumer of consumers) {
    // Bounded, so a tail that stops making progress fails the test instead of hanging it.
    let atHead = false
    for (let polls = 0; polls < 2000 && !atHead; polls += 1) {
      const page = await pollTail(engine, consumer.tenant, { after: consumer.after, collection: consumer.collection, limit: 1 + Math.floor(random() * 7) })
      consumer.events.push(...page.events)
      consumer.after = page.last_lsn
      atHead = page.last_lsn === page.head_lsn
    }
    t.ok(atHead, `the consumer reached the head (${replay})`)
    const txns = committed.get(consumer.tenant)!
    const expected = consumer.collection === undefined ? txns : onlyCollection(txns, consumer.collection)
    t.ok(expected.length > 10, `${consumer.tenant}${consumer.collection === undefined ? '' : `/${consumer.collection}`}: ${expected.length} transactions (${replay})`)
    t.same(consumer.events.map(shape), expected, `exactly the committed transactions, in order, no gaps, no duplicates (${replay})`)
    t.ok(consumer.events.every((e) => e.tenant === consumer.tenant), `only the tenant's own events (${replay})`)
  }
})

/** Waits until `sub` has handled everything up to `lsn` (or the hang guard fails the test). */
async function caughtUp(sub: Subscription, lsn: number): Promise<void> {
  await pollUntil(() => sub.last_lsn >= lsn, () => `the subscription to reach ${lsn} (it is at ${sub.last_lsn})`)
}

/** Random delays that shuffle how consumers and writers interleave (not waits for anything). */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('live subscriptions see every commit of concurrent writers once, in order: backlog, then live, at any pace', async (t) => {
  const random = rng(7)
  const { engine, notifier, runner } = await open(t, tempDir(t))
  const committed = new Map<string, Txn[]>([['a', []], ['b', []]])
  const write = async (writer: Writer, tenant: string, n: number) => {
    for (let i = 0; i < n; i += 1) {
      const txn = writer.next()
      const { lsn } = await runner.run(tenant, txn.text)
      committed.get(tenant)!.push({ lsn: lsn!, changes: txn.changes })
    }
  }
  await write(new Writer(random, 1), 'a', 15) // the backlog

  const seen = { fromStart: [] as TailEvent[], slow: [] as TailEvent[], notes: [] as TailEvent[], b: [] as TailEvent[], live: [] as TailEvent[] }
  let inHandler = 0
  const subs = [
    subscribe(engine, notifier, 'a', { after: 0 }, (e) => { seen.fromStart.push(e) }),
    // An async handler is awaited before the next event: never two at once, order kept.
    subscribe(engine, notifier, 'a', {}, async (e) => {
      inHandler += 1
      if (inHandler > 1) t.fail('two handler calls at once')
      await pause(random() * 3)
      seen.slow.push(e)
      inHandler -= 1
    }, { batch_events: 7 }),
    subscribe(engine, notifier, 'a', { after: 0, collection: 'notes' }, (e) => { seen.notes.push(e) }),
    subscribe(engine, notifier, 'b', { after: 0 }, (e) => { seen.b.push(e) }),
    subscribe(engine, notifier, 'a', { after: engine.stats().current_lsn }, (e) => { seen.live.push(e) }),
  ]
  const backlog = committed.get('a')!.length

  // Several writers at once on both tenants, each on rows of its own.
  await Promise.all([1, 2, 3, 4].map((w) => write(new Writer(random, w * 100_000), w % 2 === 0 ? 'b' : 'a', 25)))
  const head = engine.stats().current_lsn
  for (const sub of subs) await caughtUp(sub, head)
  await Promise.all(subs.map((sub) => sub.close()))

  const a = committed.get('a')!.sort((x, y) => x.lsn - y.lsn)
  t.equal(a.length, backlog + 50)
  t.same(seen.fromStart.map(shape), a, 'from after 0: the backlog, then every live commit, once each')
  t.same(seen.slow.map(shape), a, 'a slow consumer (no after: from the oldest) misses and repeats nothing')
  t.same(seen.live.map(shape), a.slice(backlog), 'from the head: only the live commits')
  t.same(seen.notes.map(shape), onlyCollection(a, 'notes'), 'a filtered subscription')
  t.same(seen.b.map(shape), committed.get('b')!.sort((x, y) => x.lsn - y.lsn), 'another tenant')
  t.equal(notifier.waiting, 0, 'closed subscriptions leave no waiter behind')
  for (const sub of subs) t.equal(sub.last_lsn, head)
})

t.test('a subscription resumed from last_lsn after a restart misses and repeats nothing', async (t) => {
  const random = rng(11)
  const dir = tempDir(t)
  const writer = new Writer(random, 1)
  const committed: Txn[] = []
  const events: TailEvent[] = []
  let after = 0
  for (let round = 0; round < 4; round += 1) {
    const { engine, committer, notifier, runner } = await open(t, dir)
    // Slow enough that the restart often comes while the subscription is behind.
    const sub = subscribe(engine, notifier, 'a', { after }, async (e) => { await pause(random() * 2); events.push(e) }, { batch_events: 3 })
    for (let i = 0; i < 20; i += 1) {
      const txn = writer.next()
      const { lsn } = await runner.run('a', txn.text)
      committed.push({ lsn: lsn!, changes: txn.changes })
    }
    if (round % 2 === 0) {
      await sub.close()
    } else {
      // The engine going away under the subscription (closed through the committer, as
      // a Database closes it) ends it with the engine's error.
      await committer.close()
      await t.rejects(sub.done, { code: 'closed' })
    }
    await engine.close()
    after = sub.last_lsn
    t.equal(after, events.at(-1)?.lsn ?? 0, 'last_lsn is the last event handled')
  }
  const { engine, notifier } = await open(t, dir)
  const sub = subscribe(engine, notifier, 'a', { after }, (e) => { events.push(e) })
  await caughtUp(sub, engine.stats().current_lsn)
  await sub.close()
  t.same(events.map(shape), committed)
})

t.test('subscription lifecycle: close waits for the running handler, a throwing handler ends it, an abort signal closes it', async (t) => {
  const { engine, notifier, runner } = await open(t, tempDir(t))
  for (let i = 1; i <= 5; i += 1) await runner.run('a', `insert items {id: ${i}, v: ${i}}`)

  let release: () => void = () => {}
  let blocked = false
  const handled: number[] = []
  const slow = subscribe(engine, notifier, 'a', { after: 0 }, async (e) => {
    if (handled.length === 1) {
      blocked = true
      await new Promise<void>((resolve) => { release = resolve })
    }
    handled.push(e.lsn)
  })
  await pollUntil(() => blocked, 'the second handler to start and block')
  let closed = false
  const closing = slow.close().then(() => { closed = true })
  // The handler cannot finish before release() below, so a close that waits for it
  // cannot have settled; one that does not wait settles in microtasks, long before this
  // turn of the event loop ends. (No length of wait can make this flake.)
  await new Promise((resolve) => setImmediate(resolve))
  t.notOk(closed, 'close waits for the handler that is running')
  release()
  await closing
  await slow.done
  t.equal(handled.length, 2, 'nothing is delivered after close')
  t.equal(slow.last_lsn, handled[1], 'the event whose handler finished counts')
  await slow.close() // twice is fine

  const boom = new Error('consumer failed')
  const failing = subscribe(engine, notifier, 'a', { after: 0 }, (e) => { if (e.changes[0]?.key === 3) throw boom })
  await t.rejects(failing.done, boom, 'a handler error ends the subscription with it')
  t.equal(failing.last_lsn, handled[1], 'and last_lsn stays before the event that failed')

  const abort = new AbortController()
  const signalled = subscribe(engine, notifier, 'a', {}, () => {}, { signal: abort.signal })
  await caughtUp(signalled, engine.stats().current_lsn)
  abort.abort()
  await signalled.done
  t.equal(notifier.waiting, 0)
})

t.test('the notifier follows the committer: every commit of a database wakes the change tail, which needs no re-check', async (t) => {
  const { db } = await openDatabase(t, schema)
  const { committer, notifier, migrator } = internalsOf(db)
  const published = (what: string) => t.equal(notifier.latest_lsn, committer.head().lsn, `${what}: published by the time it resolves`)
  const tenant = db.tenant('default')
  const head = committer.head().lsn
  // Waits at the head with no deadline of its own: only a notification ends the wait.
  const events: TailEvent[] = []
  const sub = tenant.subscribe({ after: head }, (e) => { events.push(e) })
  const waiting = tenant.tail({ after: head, wait_ms: tail_wait_ms_max })
  const { lsn } = await tenant.query('insert items {id: 1, v: 1}')
  published('a query (after the migration it made)')
  t.same((await waiting).events.map((e) => e.lsn), [lsn], 'the long poll woke for it')
  await caughtUp(sub, lsn!)
  t.same(events.map((e) => e.lsn), [lsn], 'and the subscription')
  await db.ops({ op: 'create', name: 'other' })
  published('a tenant operation')
  await migrator.ensure('other')
  published('a lazy migration')
  t.equal(notifier.latest_lsn, lsn! + 2, 'each its own commit')
  await sub.close()

  const at = committer.head().lsn
  const polling = tenant.tail({ after: at, wait_ms: tail_wait_ms_max })
  const live = tenant.subscribe({ after: at }, () => {})
  await pollUntil(() => notifier.waiting === 2, 'the long poll and the subscription to wait')
  await db.close()
  await t.rejects(polling, { code: 'closed' }, "the close ends a waiting long poll with the engine's error")
  await t.rejects(live.done, { code: 'closed' }, 'and a waiting subscription')
})
