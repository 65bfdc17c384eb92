import t from 'tap'
import { AuthThrottle } from '../src/http/auth-throttle.js'
import { auth_failure_window_ms, auth_failures_max, auth_throttle_addresses_max } from '../src/limits.js'

t.test('auth: the throttle blocks after the limit and forgets after the window', async (t) => {
  let now = 1_000_000
  const throttle = new AuthThrottle(() => now)
  for (let i = 0; i < auth_failures_max; i += 1) {
    t.equal(throttle.retryAfterSeconds('a'), 0)
    throttle.recordFailure('a')
  }
  t.equal(throttle.retryAfterSeconds('a'), auth_failure_window_ms / 1000)
  t.equal(throttle.retryAfterSeconds('b'), 0, 'other addresses are unaffected')
  now += auth_failure_window_ms - 1500
  t.equal(throttle.retryAfterSeconds('a'), 2)
  now += 1500
  t.equal(throttle.retryAfterSeconds('a'), 0, 'the window has passed')
})

t.test('auth: the throttle table stays bounded', async (t) => {
  let now = 0
  const throttle = new AuthThrottle(() => now)
  for (let i = 0; i < auth_throttle_addresses_max + 50; i += 1) {
    for (let j = 0; j < auth_failures_max; j += 1) throttle.recordFailure(`addr-${i}`)
    now += 1
  }
  t.equal(throttle.retryAfterSeconds('addr-0'), 0, 'the oldest entry was evicted')
  t.ok(throttle.retryAfterSeconds(`addr-${auth_throttle_addresses_max + 49}`) > 0, 'the newest is kept')
})
