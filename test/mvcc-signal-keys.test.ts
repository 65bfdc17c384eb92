// Conflict: a signal key conflicts only with a transaction that depends on it. Many
// snapshots of one tenant signal "its pins changed" without conflicting with one
// another, and a delete of the tenant that depends on the signal loses to each.
import t from 'tap'
import { ConflictError, ConflictLog, signalKey } from '../src/mvcc/index.js'

t.test('conflict: writers of one signal key do not conflict with each other', async (t) => {
  const log = new ConflictLog()
  const pins = signalKey('snapshots acme')
  log.accept(5, new Set([pins, 'catalog snapshot/acme/a']))
  t.doesNotThrow(() => log.accept(5, new Set([pins, 'catalog snapshot/acme/b'])), 'a second signaller commits')
  t.throws(() => log.accept(5, new Set(['catalog tenant/acme']), new Set([pins])), ConflictError, 'a dependant loses')
  t.throws(() => log.accept(5, new Set(['catalog snapshot/acme/a'])), ConflictError, 'plain keys still conflict')
})

t.test('conflict: a dependant whose snapshot holds the signal commits', async (t) => {
  const log = new ConflictLog()
  const pins = signalKey('snapshots acme')
  log.settle(log.accept(5, new Set([pins])), 6)
  t.doesNotThrow(() => log.accept(6, new Set(['x']), new Set([pins])))
})
