// The fair scheduler's turns (docs/operations.md, "Isolation", "Fair turns"): round-
// robin by tenant and by time (a tenant keeps its turns for a slice), reserved shares
// first, no tenant starved by another whose statements queue one at a time, each turn's statement run to its next await before the next turn is
// given, and at most statement_yield_ms of turns before the event loop reads its I/O.
import t from 'tap'
import { FairScheduler } from '../src/isolation/index.js'
import { statement_yield_ms } from '../src/limits.js'

/** A statement of `tenant` that waits for a turn, takes a few promise hops, then works `ms` synchronously. */
async function statement(s: FairScheduler, log: string[], tenant: string, ms: number, priority: 'reserved' | 'normal' = 'normal'): Promise<void> {
  await s.turn(tenant, priority)
  await null
  await null
  const until = performance.now() + ms
  while (performance.now() < until) { /* the statement's synchronous work */ }
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

t.test('a tenant\'s short turns run together for a slice (round-robin by time)', async (t) => {
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
      const until = performance.now() + statement_yield_ms
      while (performance.now() < until) { /* work */ }
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
    const until = performance.now() + statement_yield_ms
    while (performance.now() < until) { /* work */ }
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
