// The waits between the change feed's reconnects (src/client/backoff.ts): the ceiling
// doubles from initial_ms to max_ms, each wait is drawn between half the ceiling and
// the ceiling, a working connection starts again from initial_ms, and a sleep ends at
// once when its signal aborts.
import t from 'tap'
import { Backoff, sleep } from '../src/client/backoff.js'
import { rng } from './helpers/rng.js'

t.test('doubling to the cap, jittered within [ceiling / 2, ceiling], reset by success', async (t) => {
  const lowest = new Backoff({ initial_ms: 100, max_ms: 1_000 }, () => 0)
  t.same([1, 2, 3, 4, 5, 6].map(() => lowest.next()), [50, 100, 200, 400, 500, 500])
  const highest = new Backoff({ initial_ms: 100, max_ms: 1_000 }, () => 0.999_999)
  t.same([1, 2, 3, 4, 5].map(() => highest.next()), [100, 200, 400, 800, 1_000])
  highest.reset()
  t.equal(highest.next(), 100, 'after a reset, the initial wait again')
  const random = new Backoff({ initial_ms: 10, max_ms: 80 }, rng(7))
  const waits = Array.from({ length: 200 }, () => random.next())
  t.ok(waits.slice(3).every((w) => w >= 40 && w <= 80), 'capped, never under half the cap')
  t.ok(new Set(waits.slice(3)).size > 10, 'jittered: clients cut off together come back apart')
  t.throws(() => new Backoff({ initial_ms: 100, max_ms: 10 }), RangeError)
})

t.test('a sleep ends at once when its signal aborts', async (t) => {
  const controller = new AbortController()
  const started = Date.now()
  const slept = sleep(60_000, controller.signal)
  controller.abort(new Error('stop'))
  await t.rejects(slept, { message: 'stop' })
  t.ok(Date.now() - started < 1_000)
  await t.resolves(sleep(1, new AbortController().signal))
})
