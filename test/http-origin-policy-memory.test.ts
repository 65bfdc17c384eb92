// The Host and Origin values the origin policy remembers as allowed
// (src/http/origin-policy.ts): a remembered value answers as the full check would, a
// refused value is judged every time, the values are forgotten when the listen
// address changes, and at most allowed_header_values_max of each are kept. The
// policy's rules themselves are auth-origin-host.test.ts's.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { OriginPolicy } from '../src/http/origin-policy.js'
import { allowed_header_values_max } from '../src/limits.js'

t.test('origin policy: remembered verdicts follow the listen address', async (t) => {
  let address: AddressInfo | null = null
  const policy = new OriginPolicy(() => address, [], ['db.example'])
  t.notOk(policy.hostAllowed('localhost:7070'), 'not listening: no port matches')
  address = { address: '127.0.0.1', family: 'IPv4', port: 7070 }
  t.ok(policy.hostAllowed('localhost:7070'), 'listening on 7070')
  t.ok(policy.hostAllowed('localhost:7070'), 'again, remembered')
  t.ok(policy.originAllowed('http://localhost:7070'))
  t.ok(policy.originAllowed('http://localhost:7070'))
  address = { address: '127.0.0.1', family: 'IPv4', port: 7071 }
  t.notOk(policy.hostAllowed('localhost:7070'), 'another port: the remembered value is forgotten')
  t.notOk(policy.originAllowed('http://localhost:7070'), 'the origin too')
  t.ok(policy.hostAllowed('localhost:7071'))
  address = { address: '10.1.2.3', family: 'IPv4', port: 7071 }
  t.notOk(policy.hostAllowed('localhost:7071'), 'another address: loopback names no longer')
  t.ok(policy.hostAllowed('10.1.2.3:7071'))
  t.ok(policy.hostAllowed('db.example:7071'), 'an --allowed-host')
  t.same(policy.remembered, { hosts: 2, origins: 0 }, 'only what was allowed since the address changed')
})

t.test('origin policy: at most allowed_header_values_max values, each still judged right', async (t) => {
  const address: AddressInfo = { address: '127.0.0.1', family: 'IPv4', port: 7070 }
  const policy = new OriginPolicy(() => address, [], [])
  // Every spelling of localhost (its letters' cases) is its own Host value.
  const spellings = Array.from({ length: 2 * allowed_header_values_max }, (_, i) =>
    [...'localhost'].map((c, b) => ((i >> b) & 1) === 1 ? c.toUpperCase() : c).join('') + ':7070')
  t.equal(new Set(spellings).size, spellings.length)
  for (const host of spellings) t.ok(policy.hostAllowed(host), host)
  t.same(policy.remembered, { hosts: allowed_header_values_max, origins: 0 }, 'no more than the bound')
  for (const host of spellings) t.ok(policy.hostAllowed(host), `${host} again`)
  for (let i = 0; i < 3; i += 1) t.notOk(policy.hostAllowed('evil.example:7070'), 'a refused value stays refused')
})
