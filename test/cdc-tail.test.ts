// The change tail's poll form over a real engine: the event of each kind of write (and
// one event per atomic block), `after` exclusive, the collection filter, tenant
// isolation, limits and batching over thousands of commits, migrations and foreign
// frames that are not events, `lsn_expired` once retention deleted history, and the
// long poll waking on a commit or timing out empty.
import t from 'tap'
import type { Test } from 'tap'
import { encodeKey, encodeRow } from '../src/codec/index.js'
import {
  CommitNotifier, LsnExpiredError, TailRequestError, longPollTail, pollTail, subscribe,
  tail_limit_default, tail_limit_max, tail_page_bytes_max, tail_read_frames_max, tail_reads_per_poll_max, type TailEvent,
} from '../src/cdc/index.js'
import { readEvents } from '../src/cdc/read.js'
import { Engine, EngineError, type EngineOptions } from '../src/engine/index.js'
import type { Value } from '../src/lang/ast.js'
import { decodeCommitHeader, encodeCommitHeader, rowsTree } from '../src/txn/index.js'
import { buildSchemaIR, fingerprint } from '../src/schema/index.js'
import { pollUntil } from './helpers/poll.js'
import { openRunner } from './helpers/query-runner.js'
import { tempDir } from './helpers/temp-dir.js'
import { tail_wait_ms_max } from '../src/limits.js'

const schema = `collection items { id: int primary, v: int, tag: string = "x" }
  collection notes { id: int primary, text: string }`

async function open(t: Test, options: EngineOptions = {}, source = schema, dir = tempDir(t)) {
  const ir = buildSchemaIR([{ name: 'schema.eel', source }])
  const engine = await Engine.open(dir, options)
  const { committer, runner } = openRunner(engine, { ir, fingerprint: await fingerprint(ir) })
  const notifier = CommitNotifier.following(committer)
  t.teardown(() => engine.close())
  const q = async (tenant: string, text: string, params: Record<string, Value> = {}) => {
    const lsn = (await runner.run(tenant, text, params)).lsn
    if (lsn === undefined) throw new Error(`no commit: ${text}`)
    return lsn
  }
  return { engine, notifier, runner, dir, q }
}

/** A user write committed straight to the engine (fast, and concurrent ones share an fsync). */
function rawInsert(engine: Engine, tenant: string, collection: string, row: Record<string, Value> & { id: number }) {
  return engine.commit(
    [{ op: 'put', tree: rowsTree(tenant, collection), key: encodeKey([row.id]), value: encodeRow(row) }],
    encodeCommitHeader(tenant, new Date(), 'write', 'i'),
  )
}

async function all(engine: Engine, tenant: string, after: number, collection?: string): Promise<TailEvent[]> {
  const events: TailEvent[] = []
  // Bounded, so a tail that stops making progress fails the test instead of hanging it.
  for (let polls = 0; polls < 1000; polls += 1) {
    const page = await pollTail(engine, tenant, { after, collection, limit: tail_limit_max })
    events.push(...page.events)
    if (page.last_lsn === page.head_lsn) return events
    after = page.last_lsn
  }
  throw new Error(`the tail of ${tenant} made no progress past ${after}`)
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => { throw new Error('expected a rejection') }, (err: unknown) => err)
}

t.test('each write is one event: insert, update, upsert both ways, delete, lists and atomic blocks in order', async (t) => {
  const { engine, q } = await open(t)
  const l1 = await q('a', 'insert items {id: 1, v: 10}')
  const l2 = await q('a', 'items | where id == 1 | update {v: v + 1}')
  const l3 = await q('a', 'upsert items {id: 1, v: 5, tag: "u"}')
  const l4 = await q('a', 'upsert items {id: 2, v: 6}')
  const l5 = await q('a', 'items | where id == 2 | delete')
  const l6 = await q('a', 'insert items [{id: 3, v: 3}, {id: 4, v: 4}]')
  const l7 = await q('a', `atomic {
    insert notes {id: 1, text: "hi"};
    items | where id == 3 | update {v: 30};
    items | where id == 4 | delete;
    insert items {id: 4, v: 40};
    items | where id == 4 | update {tag: "again"}
  }`)
  const page = await pollTail(engine, 'a', { after: 0 })
  const strip = (e: TailEvent) => ({ lsn: e.lsn, tenant: e.tenant, changes: e.changes })
  t.same(page.events.map(strip), [
    { lsn: l1, tenant: 'a', changes: [{ collection: 'items', op: 'insert', key: 1, row: { id: 1, v: 10, tag: 'x' } }] },
    { lsn: l2, tenant: 'a', changes: [{ collection: 'items', op: 'update', key: 1, row: { id: 1, v: 11, tag: 'x' } }] },
    { lsn: l3, tenant: 'a', changes: [{ collection: 'items', op: 'update', key: 1, row: { id: 1, v: 5, tag: 'u' } }] },
    { lsn: l4, tenant: 'a', changes: [{ collection: 'items', op: 'insert', key: 2, row: { id: 2, v: 6, tag: 'x' } }] },
    { lsn: l5, tenant: 'a', changes: [{ collection: 'items', op: 'delete', key: 2, row: null }] },
    { lsn: l6, tenant: 'a', changes: [
      { collection: 'items', op: 'insert', key: 3, row: { id: 3, v: 3, tag: 'x' } },
      { collection: 'items', op: 'insert', key: 4, row: { id: 4, v: 4, tag: 'x' } },
    ] },
    { lsn: l7, tenant: 'a', changes: [
      { collection: 'notes', op: 'insert', key: 1, row: { id: 1, text: 'hi' } },
      { collection: 'items', op: 'update', key: 3, row: { id: 3, v: 30, tag: 'x' } },
      { collection: 'items', op: 'delete', key: 4, row: null },
      { collection: 'items', op: 'insert', key: 4, row: { id: 4, v: 40, tag: 'x' } },
      { collection: 'items', op: 'update', key: 4, row: { id: 4, v: 40, tag: 'again' } },
    ] },
  ], 'one event per transaction, its changes in statement order')
  for (const event of page.events) t.match(event.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'at is the ISO time of the commit')
  t.equal(page.last_lsn, l7)
  t.equal(page.head_lsn, l7)
  t.same(JSON.parse(JSON.stringify(page)), page, 'a page is plain JSON')
})

t.test('after is exclusive, and a poll at the head is empty but says where the head is', async (t) => {
  const { engine, q } = await open(t)
  const lsns = [await q('a', 'insert items {id: 1, v: 1}'), await q('a', 'insert items {id: 2, v: 2}'), await q('a', 'insert items {id: 3, v: 3}')]
  const [first, second, third] = lsns as [number, number, number]
  t.same((await pollTail(engine, 'a', { after: second })).events.map((e) => e.lsn), [third], 'after = an event\'s lsn: that event is not repeated')
  t.same((await pollTail(engine, 'a', { after: second - 1 })).events.map((e) => e.lsn), [second, third])
  t.same((await pollTail(engine, 'a', { after: first - 1, limit: 1 })).events.map((e) => e.lsn), [first])
  t.same(await pollTail(engine, 'a', { after: third }), { events: [], last_lsn: third, head_lsn: third })
  t.same((await pollTail(engine, 'a')).events.map((e) => e.lsn), lsns, 'no after: from the oldest retained event')
})

t.test('the collection filter keeps only that collection\'s changes and omits events left empty', async (t) => {
  const { engine, q } = await open(t)
  const onlyItems = await q('a', 'insert items {id: 1, v: 1}')
  const both = await q('a', 'atomic { insert items {id: 2, v: 2}; insert notes {id: 1, text: "n"}; items | where id == 1 | delete }')
  const onlyNotes = await q('a', 'insert notes {id: 2, text: "m"}')
  const trailing = await q('a', 'insert items {id: 3, v: 3}')
  const notes = await pollTail(engine, 'a', { after: 0, collection: 'notes' })
  t.same(notes.events.map((e) => [e.lsn, e.changes]), [
    [both, [{ collection: 'notes', op: 'insert', key: 1, row: { id: 1, text: 'n' } }]],
    [onlyNotes, [{ collection: 'notes', op: 'insert', key: 2, row: { id: 2, text: 'm' } }]],
  ])
  t.equal(notes.last_lsn, trailing, 'last_lsn moves past frames that gave no event, so a filtered poll makes progress')
  const items = await pollTail(engine, 'a', { after: 0, collection: 'items' })
  t.same(items.events.map((e) => [e.lsn, e.changes.map((c) => `${c.op} ${String(c.key)}`)]), [
    [onlyItems, ['insert 1']], [both, ['insert 2', 'delete 1']], [trailing, ['insert 3']],
  ])
  t.same((await pollTail(engine, 'a', { after: 0, collection: 'nothing' })).events, [], 'an unknown collection has no events')
})

t.test('tenant isolation: another tenant\'s writes never appear, and each tenant sees all of its own', async (t) => {
  const { engine, q } = await open(t)
  const mine: number[] = []
  const theirs: number[] = []
  for (let i = 1; i <= 20; i += 1) {
    const [a, b] = await Promise.all([q('a', 'insert items {id: $i, v: 1}', { i }), q('b', 'insert items {id: $i, v: 2}', { i })])
    mine.push(a)
    theirs.push(b)
  }
  // A tenant whose name is a prefix of another's must not see it either.
  const prefixed = await q('a2', 'insert items {id: 1, v: 3}')
  const a = await all(engine, 'a', 0)
  t.same(a.map((e) => e.lsn), mine)
  t.ok(a.every((e) => e.tenant === 'a' && e.changes.every((c) => (c.row as { v: number }).v === 1)))
  t.same((await all(engine, 'b', 0)).map((e) => e.lsn), theirs)
  t.same((await all(engine, 'a2', 0)).map((e) => e.lsn), [prefixed])
  t.same(await all(engine, 'nobody', 0), [])
})

t.test('migration and catalog commits, and frames without a header, are not events', async (t) => {
  const dir = tempDir(t)
  const first = await open(t, {}, schema, dir)
  const one = await first.q('a', 'insert items {id: 1, v: 1}')
  const [migration] = await first.engine.readFrames(0, 1, 1 << 20)
  t.equal(decodeCommitHeader(migration!.commit.meta)?.kind, 'migration', 'the first commit of the tenant migrated it')
  t.equal(one, 2)
  await first.engine.commit([{ op: 'put', tree: 'scratch', key: Buffer.from('k'), value: Buffer.from('v') }])
  await first.engine.commit([{ op: 'put', tree: 'scratch', key: Buffer.from('k'), value: Buffer.from('w') }], Buffer.from('not json'))
  await first.engine.commit([{ op: 'copy_tree', from: 't/a/r/items', to: 't/c/r/items' }], encodeCommitHeader('a', new Date(), 'catalog'))
  await first.engine.close()
  // A new schema: the tenant's next touch commits a migration that rewrites every row.
  const second = await open(t, {}, `${schema}\ncollection more { id: int primary }`, dir)
  const two = await second.q('a', 'insert more {id: 1}')
  const page = await pollTail(second.engine, 'a', { after: 0 })
  t.same(page.events.map((e) => e.lsn), [one, two], 'only the two writes')
  t.equal(page.last_lsn, two)
  t.equal(two - one, 5, 'with five non-event frames between and before them')
})

t.test('limit and batching: thousands of events, pages of any size, each event once and in order', async (t) => {
  const { engine } = await open(t)
  const n = 3000
  const pad = 'p'.repeat(700) // ~2 MiB of payload in all: the engine's byte bound splits reads too
  const lsns: number[] = []
  for (let from = 0; from < n; from += 500) {
    const chunk = Array.from({ length: 500 }, (_, i) => rawInsert(engine, 'a', i % 10 === 0 ? 'notes' : 'items', { id: from + i, v: from + i, pad }))
    lsns.push(...(await Promise.all(chunk)))
    await Promise.all(Array.from({ length: 100 }, (_, i) => rawInsert(engine, 'b', 'items', { id: from + i, v: 0 })))
  }
  t.equal((await pollTail(engine, 'a')).events.length, tail_limit_default, 'the default limit')
  t.equal((await pollTail(engine, 'a', { limit: 5000 })).events.length, tail_limit_max, 'a larger limit is lowered to the maximum')
  let after = 0
  const seen: TailEvent[] = []
  let polls = 0
  while (polls < 1000) {
    const limit = 1 + Math.floor(Math.random() * 700)
    const page = await pollTail(engine, 'a', { after, limit })
    polls += 1
    t.ok(page.events.length <= limit)
    seen.push(...page.events)
    if (page.events.length === 0) break
    // A full page ends at its last event; a short one only at the head (past b's frames).
    t.equal(page.last_lsn, page.events.length === limit ? page.events.at(-1)?.lsn : page.head_lsn)
    after = page.last_lsn
  }
  t.same(seen.map((e) => e.lsn), lsns.sort((x, y) => x - y), 'every event exactly once, in LSN order')
  t.same(seen.map((e) => e.changes[0]?.key), Array.from({ length: n }, (_, i) => i), 'each with its own row')
  t.ok(polls > 5)
  const notes = await all(engine, 'a', 0, 'notes')
  t.equal(notes.length, n / 10)
  t.ok(notes.every((e) => e.changes.length === 1 && e.changes[0]?.collection === 'notes'))
})

t.test('a poll stops at its read budget on foreign frames and reports progress; the next polls reach the head', async (t) => {
  const { engine } = await open(t)
  const budget = tail_reads_per_poll_max * tail_read_frames_max
  for (let from = 0; from < budget + 1000; from += 2000) {
    await Promise.all(Array.from({ length: 2000 }, (_, i) => rawInsert(engine, 'other', 'items', { id: from + i, v: 0 })))
  }
  const mine = await rawInsert(engine, 'a', 'items', { id: 1, v: 1 })
  const first = await pollTail(engine, 'a', { after: 0 })
  t.same(first.events, [])
  t.equal(first.last_lsn, budget, 'one poll examined its budget of frames, no more')
  t.equal(first.head_lsn, mine, 'and says the head is further')
  const second = await pollTail(engine, 'a', { after: first.last_lsn })
  t.same(second.events.map((e) => e.lsn), [mine])
  t.equal(second.last_lsn, second.head_lsn)
})

t.test('bad requests: after beyond the head, malformed after, limit, wait_ms', async (t) => {
  const { engine, notifier, q } = await open(t)
  const head = await q('a', 'insert items {id: 1, v: 1}')
  const beyond = await rejection(pollTail(engine, 'a', { after: head + 1 }))
  t.type(beyond, TailRequestError)
  t.match(beyond, { code: 'bad_request', message: /beyond the newest commit/ })
  for (const after of [-1, 1.5, Number.NaN, 2 ** 60]) t.match(await rejection(pollTail(engine, 'a', { after })), { code: 'bad_request' })
  for (const limit of [0, -3, 2.5]) t.match(await rejection(pollTail(engine, 'a', { limit })), { code: 'bad_request', message: /limit/ })
  t.match(await rejection(longPollTail(engine, notifier, 'a', { wait_ms: -1 })), { code: 'bad_request', message: /wait_ms/ })
  t.throws(() => subscribe(engine, notifier, 'a', { after: head + 1 }, () => {}), TailRequestError, 'subscribe refuses at once')
})

t.test('lsn_expired once retention deleted the history after `after`', async (t) => {
  const { engine, q } = await open(t, { tailRetentionBytes: 1, checkpointWalBytes: 1 })
  const early = await q('a', 'insert items {id: 1, v: 1}')
  // Whole WAL segments (16 MiB) are deleted, never the newest: fill more than one.
  const blob = Buffer.alloc(1000 * 1024, 1)
  for (let i = 0; i < 40 && engine.stats().oldest_lsn <= early; i += 1) {
    await engine.commit([{ op: 'put', tree: 'filler', key: Buffer.from([i]), value: blob }], encodeCommitHeader('a', new Date(), 'catalog'))
  }
  const { oldest_lsn } = engine.stats()
  t.ok(oldest_lsn > early, 'retention deleted the early frames')
  t.equal(engine.oldestLsn(), oldest_lsn, 'oldestLsn() follows retention as stats() does')
  t.equal(engine.headLsn(), engine.stats().current_lsn)
  const late = await q('a', 'insert items {id: 2, v: 2}')

  const expired = await rejection(pollTail(engine, 'a', { after: 0 }))
  t.type(expired, LsnExpiredError)
  t.match(expired, { code: 'lsn_expired', oldest_lsn, after: 0 })
  t.match(await rejection(pollTail(engine, 'a', { after: oldest_lsn - 2 })), { code: 'lsn_expired' }, 'one short of the oldest is expired too')
  t.same((await pollTail(engine, 'a', { after: oldest_lsn - 1 })).events.map((e) => e.lsn), [late], 'oldest_lsn - 1 is the earliest usable after')
  const fresh = await pollTail(engine, 'a')
  t.same(fresh.events.map((e) => e.lsn), [late], 'no after: from the oldest retained')
  t.throws(() => subscribe(engine, new CommitNotifier(), 'a', { after: 0 }, () => {}), LsnExpiredError)
  // Below the checks above, the engine itself refuses to read deleted frames: that
  // refusal becomes lsn_expired too, never a bare engine error.
  const direct = await rejection(readEvents(engine, 'a', 0, undefined, 10))
  t.type(direct, LsnExpiredError)
  t.notOk(direct instanceof EngineError)
})

t.test('long poll: wakes on a commit, keeps waiting through commits that are not its events, times out empty', async (t) => {
  const { engine, notifier, q } = await open(t)
  const head = await q('a', 'insert items {id: 1, v: 1}')
  await q('b', 'insert items {id: 1, v: 1}')
  const b = engine.stats().current_lsn

  let started = Date.now()
  const empty = await longPollTail(engine, notifier, 'a', { after: b, wait_ms: 300 })
  t.same(empty, { events: [], last_lsn: b, head_lsn: b })
  t.ok(Date.now() - started >= 290, 'waited its time')

  // wait_ms is long: answering before it ran out is what shows the wake-up came from
  // the commit or the abort (a bound on wait_ms itself, not on how fast the machine is).
  const wait_ms = tail_wait_ms_max
  started = Date.now()
  const waiting = longPollTail(engine, notifier, 'a', { after: head, wait_ms, collection: 'notes' })
  await pollUntil(() => notifier.waiting === 1, 'the long poll to wait')
  await q('b', 'insert notes {id: 1, text: "not a"}')
  await q('a', 'insert items {id: 2, v: 2}')
  // Each commit's notification took the waiter off the list before its write resolved:
  // waiting again means it read those two commits, found nothing it wants, and waits on.
  await pollUntil(() => notifier.waiting === 1, 'the long poll to wait again after commits that are not its events')
  const note = await q('a', 'insert notes {id: 1, text: "a"}')
  const woke = await waiting
  t.same(woke.events.map((e) => e.lsn), [note], 'only the event it asked for')
  t.equal(woke.last_lsn, note)
  t.ok(Date.now() - started < wait_ms, 'answered before wait_ms ran out: woken by the commit')

  const aborted = new AbortController()
  started = Date.now()
  const cut = longPollTail(engine, notifier, 'a', { after: note, wait_ms, signal: aborted.signal })
  await pollUntil(() => notifier.waiting === 1, 'the long poll to wait')
  aborted.abort()
  t.same((await cut).events, [])
  t.ok(Date.now() - started < wait_ms, 'answered before wait_ms ran out: the abort ended the wait')
  t.equal(notifier.waiting, 0, 'no waiter is left behind')

  const none = await longPollTail(engine, notifier, 'a', { after: 0, wait_ms: 10_000 })
  t.equal(none.events.length, 3, 'with events already there it answers at once')
})

t.test('the notifier: resolves for commits beyond the LSN, at once for past ones, false on timeout and abort', async (t) => {
  const notifier = new CommitNotifier(5)
  t.equal(await notifier.waitFor(4), true)
  t.equal(await notifier.waitFor(5, { timeout_ms: 10 }), false)
  t.equal(await notifier.waitFor(5, { timeout_ms: 0 }), false)
  const later = notifier.waitFor(6)
  const other = notifier.waitFor(5)
  notifier.notify(6)
  t.equal(await other, true)
  t.equal(notifier.waiting, 1, 'a wait beyond 6 stays')
  notifier.notify(3)
  t.equal(notifier.latest_lsn, 6, 'notifications never move backwards')
  notifier.notify(7)
  t.equal(await later, true)
  const abort = new AbortController()
  abort.abort()
  t.equal(await notifier.waitFor(100, { signal: abort.signal }), false)
  t.equal(notifier.waiting, 0)
})

t.test('a frame the writer got wrong is an error, never a silently wrong event; operations without a row letter are no change', async (t) => {
  const { engine } = await open(t)
  const key = encodeKey([1])
  const row = encodeRow({ id: 1, v: 1 })
  await engine.commit([
    { op: 'put', tree: rowsTree('a', 'items'), key, value: row },
    { op: 'delete', tree: rowsTree('a', 'items'), key },
  ], encodeCommitHeader('a', new Date(), 'write'))
  t.same((await pollTail(engine, 'a', { after: 0 })).events, [], 'a change is what its writer recorded as one: no letter, no change')
  await engine.commit([{ op: 'put', tree: rowsTree('a', 'items'), key, value: Buffer.from([0xff, 0xff]) }], encodeCommitHeader('a', new Date(), 'write', 'i'))
  t.match(await rejection(pollTail(engine, 'a', { after: 1 })), { message: /the row write to 'items' at LSN 2 does not decode/ },
    'never skipped silently: that would be a gap in the tail')
  await engine.commit([{ op: 'put', tree: 't/a/meta', key, value: row }], encodeCommitHeader('a', new Date(), 'write', 'u'))
  t.match(await rejection(pollTail(engine, 'a', { after: 2 })), { message: /LSN 3 has the letter 'update' on operation 0 \(put\), which is no row update of tenant 'a'/ })
  await engine.commit([{ op: 'delete', tree: rowsTree('a', 'items'), key }], encodeCommitHeader('a', new Date(), 'write', 'i'))
  t.match(await rejection(pollTail(engine, 'a', { after: 3 })), { message: /LSN 4 has the letter 'insert' on operation 0 \(delete\)/ }, 'a letter of the wrong kind')
  await engine.commit([{ op: 'put', tree: rowsTree('a', 'items'), key, value: row }], encodeCommitHeader('a', new Date(), 'write', 'd'))
  t.match(await rejection(pollTail(engine, 'a', { after: 4 })), { message: /LSN 5 has the letter 'delete' on operation 0 \(put\)/ }, 'a delete letter on a put')
  await engine.commit([{ op: 'delete', tree: rowsTree('a', 'items'), key }], encodeCommitHeader('a', new Date(), 'write', 'd-'))
  t.match(await rejection(pollTail(engine, 'a', { after: 5 })), { message: /LSN 6 has 2 operation letters for 1 operations/ })
})

t.test('a frame of the older header form (one letter per row write, `changes`) reads as it always did', async (t) => {
  const { engine } = await open(t)
  const put = (id: number) => ({ op: 'put' as const, tree: rowsTree('a', 'items'), key: encodeKey([id]), value: encodeRow({ id, v: id }) })
  const meta = Buffer.from(JSON.stringify({ tenant: 'a', at: new Date(0).toISOString(), kind: 'write', changes: 'iud' }))
  const lsn = await engine.commit([
    put(1),
    { op: 'put', tree: 't/a/x/items/v', key: encodeKey([1, 1]), value: Buffer.alloc(0) },
    put(2),
    { op: 'put', tree: rowsTree('b', 'items'), key: encodeKey([9]), value: encodeRow({ id: 9 }) },
    { op: 'delete', tree: rowsTree('a', 'items'), key: encodeKey([3]) },
  ], meta)
  const [event] = (await pollTail(engine, 'a', { after: lsn - 1 })).events
  t.same(event?.changes.map((c) => [c.op, c.key]), [['insert', 1], ['update', 2], ['delete', 3]], "the letters stand at the tenant's rows-tree operations, in order")
})

/**
 * An engine stand-in over `count` frames of tenant a, whose retention runs when
 * `retainAt(call)` says so: between the tail's check of `after` and its read, the race
 * a real engine only loses rarely.
 */
function racingEngine(count: number, retainAt: (call: number) => number | undefined) {
  const frames = Array.from({ length: count }, (_, i) => ({
    lsn: i + 1,
    commit: {
      meta: encodeCommitHeader('a', new Date(0), 'write', 'i'),
      ops: [{ op: 'put' as const, tree: rowsTree('a', 'items'), key: encodeKey([i + 1]), value: encodeRow({ id: i + 1 }) }],
    },
  }))
  let oldest = 1
  let calls = 0
  const fake = {
    oldestLsn: () => oldest,
    headLsn: () => count,
    readFrames: async (after: number, framesMax: number) => {
      oldest = retainAt(++calls) ?? oldest
      if (after + 1 < oldest) throw new EngineError('invalid_argument', `WAL frames after LSN ${after} were deleted by retention`)
      return frames.slice(after, after + framesMax)
    },
  }
  return fake as unknown as Engine
}

t.test('retention racing a read: from the oldest starts again, a given after expires, progress made is kept', async (t) => {
  const fromOldest = await pollTail(racingEngine(20, (call) => (call === 1 ? 11 : undefined)), 'a')
  t.same(fromOldest.events.map((e) => e.lsn), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 'no after: restarted from the new oldest')

  const given = await rejection(pollTail(racingEngine(20, (call) => (call === 1 ? 11 : undefined)), 'a', { after: 0 }))
  t.type(given, LsnExpiredError)
  t.match(given, { oldest_lsn: 11 })

  const engine = racingEngine(600, (call) => (call === 2 ? 400 : undefined))
  const partial = await pollTail(engine, 'a', { after: 0, limit: 1000 })
  t.equal(partial.events.length, tail_read_frames_max, 'the first batch is returned though the second read found its frames gone')
  t.equal(partial.last_lsn, tail_read_frames_max)
  t.match(await rejection(pollTail(engine, 'a', { after: partial.last_lsn })), { code: 'lsn_expired', oldest_lsn: 400 }, 'and the next poll says so')

  const events: TailEvent[] = []
  const sub = subscribe(racingEngine(20, (call) => (call === 1 ? 11 : undefined)), new CommitNotifier(), 'a', {}, (e) => { events.push(e) })
  await pollUntil(() => sub.last_lsn >= 20, 'the subscription to reach LSN 20')
  await sub.close()
  t.same(events.map((e) => e.lsn), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 'a subscription from the oldest restarts the same way')

  const behind = subscribe(racingEngine(20, (call) => (call === 2 ? 11 : undefined)), new CommitNotifier(), 'a', { after: 0 }, () => {}, { batch_events: 5 })
  t.match(await rejection(behind.done), { code: 'lsn_expired' }, 'a subscription that delivered events and fell behind retention ends with lsn_expired')
  t.equal(behind.last_lsn, 5, 'resumable from what it delivered')

  const broken = racingEngine(5, () => undefined)
  broken.readFrames = async () => { throw new EngineError('corrupted', 'WAL frame damaged') }
  t.match(await rejection(pollTail(broken, 'a')), { name: 'EngineError', code: 'corrupted' }, 'other engine errors pass through unchanged')
})

t.test('a page of large transactions ends early at its byte bound, always with at least one event', async (t) => {
  const { engine } = await open(t)
  const big = 'b'.repeat(900 * 1024)
  const lsns: number[] = []
  for (let id = 1; id <= 10; id += 1) lsns.push(await rawInsert(engine, 'a', 'items', { id, v: id, big }))
  const first = await pollTail(engine, 'a', { after: 0, limit: 1000 })
  t.ok(first.events.length > 0 && first.events.length < 10, `one page held ${first.events.length} of the 10 (about ${tail_page_bytes_max} bytes)`)
  t.equal(first.last_lsn, first.events.at(-1)?.lsn, 'and resumes right after its last event')
  t.same((await all(engine, 'a', 0)).map((e) => e.lsn), lsns, 'paging still yields every event once')
})
