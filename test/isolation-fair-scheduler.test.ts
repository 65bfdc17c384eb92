// The fair scheduler's turns (docs/operations.md, "Isolation", "Fair turns"): start-time
// fair queueing by tenant, charged by the time each turn ran and weighted by the
// tenant's shares; reserved shares first; a light tenant served before one whose
// statements ran long, however many of them wait; no tenant starved by another whose
// statements queue one at a time; each turn's statement run to its next await before
// the next turn is given, and at most statement_yield_ms of turns before the event loop
// reads its I/O.
import t from 'tap'
import { FairScheduler, Governor, scheduler } from '../src/isolation/index.js'
import { openDatabase } from './helpers/database.js'
import { statement_yield_ms, turn_lag_ms_max, turn_weight_rows_per_s } from '../src/limits.js'
import type { TenantLimits } from '../src/tenants/index.js'

/** Works `ms` synchronously. */
function work(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) { /* the statement's synchronous work */ }
}

/**
 * A statement of `tenant` that waits for a turn, takes a few promise hops, then works
 * `ms` synchronously and is charged for it, as the query runner charges a run.
 */
async function statement(s: FairScheduler, log: string[], tenant: string, ms: number, priority: 'reserved' | 'normal' = 'normal', weight = 1): Promise<void> {
  await s.turn(tenant, priority)
  await null
  await null
  work(ms)
  // Charged what it was meant to run, so the order does not hang on the clock's noise.
  s.charge(tenant, ms, weight)
  log.push(tenant)
}

t.test('turns go round-robin by tenant', async (t) => {
  const s = new FairScheduler()
  const log: string[] = []
  // Each turn uses a whole slice, so each tenant's run of turns is one turn long.
  const ms = statement_yield_ms
  await Promise.all([
    statement(s, log, 'b', ms), statement(s, log, 'b', ms), statement(s, log, 'b', ms), statement(s, log, 'b', ms),
    statement(s, log, 'c', ms), statement(s, log, 'c', ms),
    statement(s, log, 'a', ms),
  ])
  t.same(log, ['b', 'c', 'a', 'b', 'c', 'b', 'b'], 'b, c and a in turn; b\'s backlog last')
  t.equal(s.turns, 7)
  t.equal(s.waiting, 0)
})

t.test('a light tenant\'s reads go before a tenant whose turns ran long (fair queueing by time)', async (t) => {
  const s = new FairScheduler()
  const log: string[] = []
  const long = statement_yield_ms * 2
  await Promise.all([
    statement(s, log, 'b', long), statement(s, log, 'b', long),
    ...Array.from({ length: 5 }, () => statement(s, log, 'a', 0)),
  ])
  t.same(log, ['b', 'a', 'a', 'a', 'a', 'a', 'b'], 'a\'s five reads take one run of turns, not one each between b\'s long ones')
})

t.test('a reserved tenant\'s turns come first', async (t) => {
  const s = new FairScheduler()
  const log: string[] = []
  await Promise.all([statement(s, log, 'b', 0), statement(s, log, 'b', 0), statement(s, log, 'r', 0, 'reserved'), statement(s, log, 'r', 0, 'reserved')])
  t.same(log, ['r', 'r', 'b', 'b'])
})

t.test('a turn runs to its next await, and the loop reads I/O between long turns', async (t) => {
  const s = new FairScheduler()
  const log: string[] = []
  const work_ms = statement_yield_ms * 2
  const all = Promise.all([statement(s, log, 'b', work_ms), statement(s, log, 'b', work_ms), statement(s, log, 'b', work_ms), statement(s, log, 'a', 0)])
  // Stands for a request's I/O: a callback of the next turn of the loop, queued now.
  setImmediate(() => log.push('io'))
  await all
  // Each of b's turns is longer than a slice: the loop turns after each, so the
  // callback runs after the first, and a comes before b's backlog.
  t.same(log, ['b', 'io', 'a', 'b', 'b'])
})

t.test('short turns share one slice of the loop', async (t) => {
  const s = new FairScheduler()
  const log: string[] = []
  const all = Promise.all(Array.from({ length: 5 }, (_, i) => statement(s, log, `t${i}`, 0)))
  setImmediate(() => log.push('io'))
  await all
  await new Promise((resolve) => setImmediate(resolve))
  t.same(log, ['t0', 't1', 't2', 't3', 't4', 'io'], 'turns of no work all run before the loop turns')
})

t.test('a tenant whose statements queue one at a time does not starve a backlog', async (t) => {
  const s = new FairScheduler()
  const served: string[] = []
  let running = true
  // b: two statements that each take a turn, work a slice, then wait a loop turn
  // before asking again, so b's queue is empty between its turns.
  const b = async () => {
    while (running) {
      await s.turn('b')
      work(statement_yield_ms)
      s.charge('b', statement_yield_ms)
      served.push('b')
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  const bs = [b(), b()]
  // a: a backlog of 5 statements of a slice each, so a always has more waiting.
  await new Promise((resolve) => setTimeout(resolve, 5))
  const started = performance.now()
  await Promise.all(Array.from({ length: 5 }, async () => {
    await s.turn('a')
    work(statement_yield_ms)
    s.charge('a', statement_yield_ms)
    served.push('a')
  }))
  const took = performance.now() - started
  running = false
  await Promise.all(bs)
  const during = served.slice(served.indexOf('a'), served.lastIndexOf('a') + 1)
  const bTurns = during.filter((x) => x === 'b').length
  // Round-robin: a's turns alternate with b's, about one of b's between two of a's.
  t.ok(bTurns <= 2 * 5, `a's 5 turns came within ${bTurns} of b's (${took.toFixed(1)} ms)`)
})

t.test('turns are shared in proportion to weights', async (t) => {
  const s = new FairScheduler()
  const log: string[] = []
  const ms = 1
  // Both have a backlog of equal turns; h has three shares, l one.
  await Promise.all([
    ...Array.from({ length: 12 }, () => statement(s, log, 'h', ms, 'normal', 3)),
    ...Array.from({ length: 12 }, () => statement(s, log, 'l', ms, 'normal', 1)),
  ])
  // While both still wait (the first 16 turns), h gets about three for each of l's.
  const first = log.slice(0, 16)
  const h = first.filter((x) => x === 'h').length
  t.ok(h >= 11 && h <= 13, `h had ${h} of the first 16 turns (3:1 is 12)`)
  t.equal(log.length, 24)
})

t.test('a statement starting while others wait runs at once only when its tenant would go first', async (t) => {
  const s = new FairScheduler()
  // b ran a long slice and waits again; a has run nothing.
  s.charge('b', 10)
  const waiting = s.turn('b')
  t.equal(s.due('b'), true, 'b waits behind its own waiting statement')
  t.equal(s.due('a'), false, 'a, with nothing charged, would go first: it runs now')
  t.equal(s.due('c', 'normal'), false, 'so would any tenant that ran nothing')
  const reserved = s.turn('r', 'reserved')
  t.equal(s.due('a'), true, 'a reserved tenant\'s waiting statement goes before a')
  t.equal(s.due('q', 'reserved'), true, 'and before another reserved one that came after it (ties go to the first)')
  await Promise.all([waiting, reserved])
})

t.test('work done while nobody waited counts for at most turn_lag_ms_max against a newcomer', async (t) => {
  const s = new FairScheduler()
  const log: string[] = []
  // b ran alone for a long time: far ahead of the clock.
  s.charge('b', 10_000)
  const ms = 1
  const runs = Math.ceil(turn_lag_ms_max / ms) + 3
  await Promise.all([
    statement(s, log, 'b', ms), statement(s, log, 'b', ms),
    ...Array.from({ length: runs }, () => statement(s, log, 'a', ms)),
  ])
  const before = log.indexOf('b')
  t.ok(before >= 1 && before <= runs - 1, `b's first turn came after ${before} of a's, not after all ${runs} of them`)
})

t.test('a tenant\'s weight is its reserved read budget over turn_weight_rows_per_s, at least 1', async (t) => {
  const governor = new Governor()
  const weight = (limits: TenantLimits) => governor.admit('acme', governor.limitsOf(limits), false).weight
  t.equal(weight({}), 1, 'no reservation: one share')
  t.equal(weight({ rows_examined_per_s_reserved: 50 * turn_weight_rows_per_s }), 50)
  t.equal(weight({ rows_examined_per_s_reserved: turn_weight_rows_per_s / 10 }), 1, 'a small reservation still one share')
  t.equal(weight({ commits_per_s_reserved: 100 }), 1, 'only reads weigh')
})

t.test('a statement of a transaction takes its tenant\'s turns, as one run alone does', async (t) => {
  const { db } = await openDatabase(t, 'collection items { id: int primary, n: int }')
  const items = db.tenant('default')
  await items.query('insert items $rows', { rows: Array.from({ length: 30_000 }, (_, id) => ({ id, n: id })) })
  const before = scheduler.turns
  const count = await items.transaction(async (tx) => (await tx.query('items | where n == -1 | count')).rows)
  t.same(count, [[0]])
  t.ok(scheduler.turns > before, `the scan inside the transaction yielded through the scheduler (${scheduler.turns - before} turns)`)
})
