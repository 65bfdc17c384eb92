// A live tail at the head takes new commits from the payloads kept in memory instead
// of reading them back from the WAL. What could break: an event that differs from the
// WAL's, a commit skipped or repeated at a gap (a commit made past the committer,
// a payload too large to keep), memory that grows past the bounds.
import t from 'tap'
import { CommitNotifier, pollTail, subscribe, type TailEvent } from '../src/cdc/index.js'
import { RecentCommits } from '../src/cdc/recent-commits.js'
import { tail_recent_bytes_max, tail_recent_commit_bytes_max, tail_recent_commits_max } from '../src/limits.js'
import { openDatabase } from './helpers/database.js'
import { pollUntil } from './helpers/poll.js'
import { internalsOf } from '../src/database/internals.js'
import { encodeKey, encodeRow } from '../src/codec/index.js'
import { encodeCommit } from '../src/engine/commit-writer.js'
import { encodeCommitHeader, rowsTree } from '../src/txn/index.js'

t.test('recent commits: bounded by count and bytes, oldest out first, large payloads never kept', async (t) => {
  const recent = new RecentCommits()
  for (let lsn = 1; lsn <= tail_recent_commits_max + 10; lsn += 1) recent.record(lsn, Buffer.alloc(8, lsn))
  t.equal(recent.size, tail_recent_commits_max)
  t.equal(recent.get(10), undefined, 'the oldest went first')
  t.same(recent.get(tail_recent_commits_max + 10), Buffer.alloc(8, tail_recent_commits_max + 10))
  recent.record(99_999, Buffer.alloc(tail_recent_commit_bytes_max + 1))
  t.equal(recent.get(99_999), undefined, 'a payload over the per-commit bound is not kept')
  const big = new RecentCommits()
  const each = tail_recent_commit_bytes_max
  const fits = Math.floor(tail_recent_bytes_max / each)
  for (let lsn = 1; lsn <= fits + 3; lsn += 1) big.record(lsn, Buffer.alloc(each))
  t.equal(big.size, fits, 'the byte bound holds')
})

t.test('a live tail delivers from memory exactly what a poll reads from the WAL, across gaps', async (t) => {
  const { db } = await openDatabase(t, 'collection notes { id: int primary, text: string }')
  const tenant = db.tenant('default')
  const after = internalsOf(db).engine.stats().current_lsn
  const live: TailEvent[] = []
  const sub = tenant.subscribe({ after }, (event) => { live.push(event) })
  t.teardown(() => sub.close())
  let id = 0
  const insert = () => tenant.query('insert notes {id: $id, text: $t}', { id: ++id, t: `note ${id}` })
  for (let i = 0; i < 20; i += 1) await insert()
  // A gap: a commit the committer did not make (its payload is not in memory).
  await internalsOf(db).engine.commit([{ op: 'put', tree: 'elsewhere', key: Buffer.from('k'), value: Buffer.from('v') }])
  await Promise.all(Array.from({ length: 30 }, insert))
  // Another gap: a write too large to keep in memory.
  await tenant.query('insert notes {id: $id, text: $t}', { id: ++id, t: 'x'.repeat(tail_recent_commit_bytes_max) })
  await Promise.all(Array.from({ length: 10 }, insert))
  const head = internalsOf(db).engine.stats().current_lsn
  await pollUntil(() => (live.at(-1)?.lsn ?? 0) >= head, () => `the live tail to reach ${head} (at ${live.at(-1)?.lsn ?? 0})`)
  t.ok(internalsOf(db).notifier.recent.size > 0, 'the notifier kept the committed payloads')
  const polled: TailEvent[] = []
  for (let from = after; ;) {
    const page = await pollTail(internalsOf(db).engine, 'default', { after: from, limit: 1000 })
    polled.push(...page.events)
    if (page.last_lsn >= head) break
    from = page.last_lsn
  }
  t.equal(polled.length, 61, 'every insert is one event (the engine-only commit has no tenant event)')
  t.same(live.map((e) => e.lsn), polled.map((e) => e.lsn), 'the same commits, once each, in order')
  t.same(JSON.parse(JSON.stringify(live)), JSON.parse(JSON.stringify(polled)), 'and the same events')
})

t.test('the notifier keeps payloads only when given them', async (t) => {
  const notifier = new CommitNotifier(0)
  notifier.notify(1)
  notifier.notify(2, Buffer.from('p'))
  t.equal(notifier.recent.get(1), undefined)
  t.same(notifier.recent.get(2), Buffer.from('p'))
  t.equal(notifier.latest_lsn, 2)
})

t.test('a live tail reads no WAL at the head, and still delivers a durable commit no one announces', async (t) => {
  const { db } = await openDatabase(t, 'collection notes { id: int primary, text: string }')
  const tenant = db.tenant('default')
  const engine = internalsOf(db).engine
  const walReads = countWalReads(engine)
  await tenant.query('insert notes {id: 1, text: "announced"}')
  const after = engine.stats().current_lsn
  // A tenant write made past the committer: durable, its event real, never announced.
  const row = (id: number, text: string) => ({ op: 'put' as const, tree: rowsTree('default', 'notes'), key: encodeKey([id]), value: encodeRow({ id, text }) })
  const unannounced = await engine.commit([row(2, 'past the committer')], encodeCommitHeader('default', new Date(), 'write', 'i'))
  const live: TailEvent[] = []
  const sub = tenant.subscribe({ after }, (event) => { live.push(event) })
  t.teardown(() => sub.close())
  await pollUntil(() => live.length === 1, 'the unannounced commit to be delivered')
  t.same(live.map((e) => [e.lsn, e.changes[0]?.row]), [[unannounced, { id: 2, text: 'past the committer' }]])
  t.equal(walReads.count, 1, 'read from the WAL once its announcement did not come')
  for (let id = 3; id < 23; id += 1) await tenant.query('insert notes {id: $id, text: "at the head"}', { id })
  await Promise.all(Array.from({ length: 40 }, (_, i) => tenant.query('insert notes {id: $id, text: "in flight"}', { id: 100 + i })))
  const head = engine.stats().current_lsn
  await pollUntil(() => (live.at(-1)?.lsn ?? 0) >= head, 'the tail to reach the head')
  t.equal(live.length, 61, 'each commit once')
  t.same(live.map((e) => e.lsn), [...live.map((e) => e.lsn)].sort((a, b) => a - b), 'in LSN order')
  t.equal(walReads.count, 1, 'no WAL read for commits announced with their payloads, at the head or in flight')
})

t.test('a durable commit seen before its announcement is taken from the announcement, not read back from the WAL', async (t) => {
  const { db } = await openDatabase(t, 'collection notes { id: int primary, text: string }')
  const engine = internalsOf(db).engine
  const walReads = countWalReads(engine)
  const after = engine.headLsn()
  // A notifier announced to by hand holds open the window between the engine's
  // publishing a commit and its completion reaching JavaScript.
  const notifier = new CommitNotifier(after)
  const ops = [{ op: 'put' as const, tree: rowsTree('default', 'notes'), key: encodeKey([1]), value: encodeRow({ id: 1, text: 'announced late' }) }]
  const payload = encodeCommit({ meta: encodeCommitHeader('default', new Date(), 'write', 'i'), ops })
  const lsn = await engine.commitPayload(payload)
  const live: TailEvent[] = []
  const sub = subscribe(engine, notifier, 'default', { after }, (event) => { live.push(event) })
  t.teardown(() => sub.close())
  // Microtasks only: no timer (the tail's bounded wait included) fires meanwhile.
  for (let turn = 0; turn < 100 && notifier.waiting === 0; turn += 1) await Promise.resolve()
  t.equal(notifier.waiting, 1, 'the tail waits for the announcement instead of reading the WAL')
  notifier.notify(lsn, payload)
  await pollUntil(() => live.length === 1, 'the announced commit to be delivered')
  t.same(live.map((e) => [e.lsn, e.changes[0]?.row]), [[lsn, { id: 1, text: 'announced late' }]])
  t.equal(walReads.count, 0, 'decoded from the announced payload')
})

/** Reads of the WAL, counted on the real engine. */
function countWalReads(engine: ReturnType<typeof internalsOf>['engine']): { count: number } {
  const reads = { count: 0 }
  const readFrames = engine.readFrames.bind(engine)
  engine.readFrames = (...args: Parameters<typeof readFrames>) => {
    reads.count += 1
    return readFrames(...args)
  }
  return reads
}
