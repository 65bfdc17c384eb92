// Many live tails at once (docs/architecture.md, "The change feed"): each commit is decoded
// once, its event made once per (tenant, collection) and shared by every tail of that
// filter, and encoded once for all of them (eventText); a tail that stalls is skipped,
// never waited for. What could break: a tail given another filter's event, an event
// missed or repeated when tails share work, commits held up by a stalled tail, or the
// sharing itself silently gone (each tail decoding and encoding on its own again).
import t from 'tap'
import { CommitNotifier, eventText, subscribe, type Subscription, type TailChange, type TailEvent } from '../src/cdc/index.js'
import { Engine } from '../src/engine/index.js'
import { buildSchemaIR, fingerprint } from '../src/schema/index.js'
import { pollUntil } from './helpers/poll.js'
import { openRunner } from './helpers/query-runner.js'
import { rng } from './helpers/rng.js'
import { tempDir } from './helpers/temp-dir.js'

const schema = `collection items { id: int primary, v: int }
  collection notes { id: int primary, text: string }`

interface Txn {
  tenant: string
  lsn: number
  changes: TailChange[]
}

/**
 * A random write of one tenant on rows of its own (new ids from `next`), with the
 * changes it must produce. An existing item is updated or deleted at most once per
 * wave (`taken`), so writes in flight together never conflict.
 */
function randomWrite(random: () => number, ids: { next: number; items: number[] }, taken: Set<number>): { text: string; changes: TailChange[] } {
  const roll = random()
  const v = Math.floor(random() * 1000)
  let existing = ids.items[Math.floor(random() * ids.items.length)]
  if (existing !== undefined && taken.has(existing)) existing = undefined
  if (existing !== undefined && roll < 0.3) taken.add(existing)
  if (existing !== undefined && roll < 0.2) {
    return { text: `items | where id == ${existing} | update {v: ${v}}`, changes: [{ collection: 'items', op: 'update', key: existing, row: { id: existing, v } }] }
  }
  if (existing !== undefined && roll < 0.3) {
    ids.items.splice(ids.items.indexOf(existing), 1)
    return { text: `items | where id == ${existing} | delete`, changes: [{ collection: 'items', op: 'delete', key: existing, row: null }] }
  }
  const item = ids.next++
  const note = ids.next++
  // Not updated or deleted in the wave that inserts it (the insert may not have run yet).
  taken.add(item)
  if (roll < 0.55) {
    ids.items.push(item)
    return { text: `insert items {id: ${item}, v: ${v}}`, changes: [{ collection: 'items', op: 'insert', key: item, row: { id: item, v } }] }
  }
  if (roll < 0.8) return { text: `insert notes {id: ${note}, text: "n${note}"}`, changes: [{ collection: 'notes', op: 'insert', key: note, row: { id: note, text: `n${note}` } }] }
  // Both collections in one transaction: one event, split between filters.
  ids.items.push(item)
  return {
    text: `atomic { insert items {id: ${item}, v: ${v}}; insert notes {id: ${note}, text: "n${note}"} }`,
    changes: [
      { collection: 'items', op: 'insert', key: item, row: { id: item, v } },
      { collection: 'notes', op: 'insert', key: note, row: { id: note, text: `n${note}` } },
    ],
  }
}

/** The events a tail of `tenant` (and `collection`) must see of `txns`, in LSN order. */
function expected(txns: Txn[], tenant: string, collection: string | undefined): Array<{ lsn: number; changes: TailChange[] }> {
  return txns
    .filter((txn) => txn.tenant === tenant)
    .map((txn) => ({ lsn: txn.lsn, changes: collection === undefined ? txn.changes : txn.changes.filter((c) => c.collection === collection) }))
    .filter((txn) => txn.changes.length > 0)
    .sort((x, y) => x.lsn - y.lsn)
}

const shape = (e: TailEvent) => ({ lsn: e.lsn, changes: e.changes })

t.test('ten tails with mixed filters each get exactly their events, in order, sharing each event; a stalled tail holds up no commit', async (t) => {
  const random = rng(0xfa_0a07)
  const ir = buildSchemaIR([{ name: 'schema.eel', source: schema }])
  const engine = await Engine.open(tempDir(t))
  t.teardown(() => engine.close())
  const { committer, runner } = openRunner(engine, { ir, fingerprint: await fingerprint(ir) })
  const notifier = CommitNotifier.following(committer)
  // Touch both tenants first, so their migrations (not events) are behind the tails' start.
  await runner.run('a', 'insert notes {id: 0, text: "before"}')
  await runner.run('b', 'insert notes {id: 0, text: "before"}')
  const start = engine.headLsn()

  const filters: Array<[string, string | undefined]> = [
    ['a', undefined], ['a', undefined], ['a', 'items'], ['a', 'items'], ['a', 'notes'],
    ['a', 'notes'], ['b', undefined], ['b', undefined], ['b', 'items'], ['b', 'notes'],
  ]
  const tails = filters.map(([tenant, collection]) => {
    const events: TailEvent[] = []
    const texts: string[] = []
    // As the WebSocket route does: the event's text, for the wire.
    const sub = subscribe(engine, notifier, tenant, { after: start, collection }, (event) => {
      events.push(event)
      texts.push(eventText(event))
    })
    return { tenant, collection, events, texts, sub }
  })
  // The stalled tail: its first event's handler does not return until released.
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  const stalled = { calls: 0, events: [] as TailEvent[] }
  const stalledSub: Subscription = subscribe(engine, notifier, 'a', { after: start }, async (event) => {
    stalled.calls += 1
    if (stalled.calls === 1) await held
    stalled.events.push(event)
  })
  t.teardown(() => Promise.all([stalledSub, ...tails.map((tail) => tail.sub)].map((sub) => sub.close())))

  // Waves of 64 writes in flight over both tenants. Every wave settles whole while the
  // stalled tail is still inside its first handler: commits never wait for a tail.
  const txns: Txn[] = []
  const ids = new Map([['a', { next: 1, items: [] as number[] }], ['b', { next: 1, items: [] as number[] }]])
  const waves = 8
  for (let wave = 0; wave < waves; wave += 1) {
    const taken = new Set<number>()
    const writes = Array.from({ length: 64 }, () => {
      const tenant = random() < 0.6 ? 'a' : 'b'
      return { tenant, ...randomWrite(random, ids.get(tenant)!, taken) }
    })
    const settled = await Promise.all(writes.map(async (w) => {
      const { lsn } = await runner.run(w.tenant, w.text)
      return { tenant: w.tenant, lsn: lsn!, changes: w.changes }
    }))
    txns.push(...settled)
    if (wave === 0) await pollUntil(() => stalled.calls === 1, 'the stalled tail to take its first event')
    t.equal(stalled.calls, 1, `wave ${wave}: all 64 commits settled while the stalled tail held its first event`)
  }
  t.equal(txns.length, waves * 64, 'every commit settled')
  const head = engine.headLsn()
  for (const tail of tails) await pollUntil(() => tail.sub.last_lsn >= head, () => `a ${tail.tenant}/${tail.collection ?? '*'} tail to reach ${head} (at ${tail.sub.last_lsn})`)
  t.equal(stalled.events.length, 0, 'the stalled tail was skipped meanwhile, not fed')

  for (const tail of tails) {
    const want = expected(txns, tail.tenant, tail.collection)
    t.ok(want.length > 20, `${tail.tenant}/${tail.collection ?? '*'}: ${want.length} events expected`)
    t.same(tail.events.map(shape), want, `${tail.tenant}/${tail.collection ?? '*'}: exactly its events, in LSN order, each once`)
    t.same(tail.texts.map((text) => JSON.parse(text) as unknown), JSON.parse(JSON.stringify(tail.events)) as unknown, `${tail.tenant}/${tail.collection ?? '*'}: each text is its event's JSON`)
  }
  // Tails of one filter were handed the very same event objects (decoded once). A tail
  // that waited tail_notice_wait_ms for a commit's announcement in vain (a loop held up
  // by a loaded machine) reads that commit from the WAL, decoded for itself: most
  // events are shared, not necessarily every one (none would be, were sharing broken).
  for (let i = 0; i < tails.length; i += 1) {
    for (let j = i + 1; j < tails.length; j += 1) {
      const [x, y] = [tails[i]!, tails[j]!]
      if (x.tenant !== y.tenant || x.collection !== y.collection) continue
      const same = x.events.filter((event, k) => event === y.events[k]).length
      t.ok(same >= x.events.length / 2, `${x.tenant}/${x.collection ?? '*'}: one event object per commit for both tails (${same} of ${x.events.length})`)
    }
  }
  // And each shared event's text was made once, then kept with it: a probe that
  // changes an event after its text was made still gets the kept text (then restores it).
  const probe = tails[0]!.events.filter((event, k) => event === tails[1]!.events[k])
  t.ok(probe.length > 0 && probe.every((event) => {
    const kept = eventText(event)
    const lsn = event.lsn
    event.lsn = -1
    const again = eventText(event)
    event.lsn = lsn
    return again === kept && JSON.parse(kept).lsn === lsn
  }), 'the text of a shared event is made once (JSON.stringify not run again for the next tail)')

  // Released, the stalled tail catches up: every event of its filter, in order, once.
  release()
  await pollUntil(() => stalledSub.last_lsn >= head, () => `the stalled tail to catch up to ${head} (at ${stalledSub.last_lsn})`)
  t.same(stalled.events.map(shape), expected(txns, 'a', undefined), 'the released tail misses and repeats nothing')
})
