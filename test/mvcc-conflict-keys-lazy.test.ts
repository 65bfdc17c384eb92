// The conflict log takes a transaction's keys as a function, built only when another
// transaction is validated against it: a bulk insert nothing overlapped never builds
// its keys, and a lazily given transaction still conflicts like any other.
import t from 'tap'
import { ConflictError, ConflictLog } from '../src/mvcc/index.js'
import { TxnView } from '../src/txn/index.js'
import { Engine } from '../src/engine/index.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('keys are not built when no transaction overlaps', async (t) => {
  const log = new ConflictLog()
  let built = 0
  const entry = log.accept(5, () => { built += 1; return new Set(['a']) })
  log.settle(entry, 6)
  t.equal(built, 0)
})

t.test('an overlapping writer conflicts with lazily given keys, both ways round', async (t) => {
  const log = new ConflictLog()
  let built = 0
  const lazy = () => { built += 1; return new Set(['x', 'y']) }
  log.accept(5, lazy) // accepted, not yet durable
  t.throws(() => log.accept(5, new Set(['y'])), ConflictError, 'a later writer of y on the same snapshot loses')
  t.throws(() => log.accept(5, () => new Set(['x'])), ConflictError, 'and so does a lazy one')
  t.equal(built, 1, 'the keys were built once')
  t.doesNotThrow(() => log.accept(5, () => new Set(['z'])), 'a disjoint writer commits')
})

t.test('a transaction view refuses writes after its commit payload was taken', async (t) => {
  const engine = await Engine.open(tempDir(t))
  t.teardown(() => engine.close())
  const view = new TxnView(engine.snapshot())
  view.put('kv', Buffer.from('a'), Buffer.from('1'))
  view.payload(Buffer.alloc(0))
  t.throws(() => view.put('kv', Buffer.from('b'), Buffer.from('2')), /after its commit payload was taken/)
  t.throws(() => view.delete('kv', Buffer.from('a')), /after its commit payload was taken/)
})
