// The TypeScript half of the commit format round-trips every operation through the
// engine (the Rust half decodes it and logs it; the frame comes back decoded here).
import t from 'tap'
import { decodeCommit, type Op } from '../src/engine/commit-codec.js'
import { encodeCommit } from '../src/engine/commit-writer.js'
import { Engine } from '../src/engine/index.js'
import { tempDir } from './helpers/temp-dir.js'

const b = (text: string) => Buffer.from(text)

const every_op: Op[] = [
  { op: 'put', tree: 'ŧree', key: b('k'), value: b('v') },
  { op: 'pin', name: 'p' },
  { op: 'copy_tree', from: 'ŧree', to: 'copy' },
  { op: 'copy_tree_from_pin', pin: 'p', from: 'ŧree', to: 'copy2' },
  { op: 'compact_tree', tree: 'ŧree' },
  { op: 'delete', tree: 'ŧree', key: b('k') },
  { op: 'unpin', name: 'p' },
  { op: 'drop_tree', tree: 'copy' },
]

t.test('every operation survives the round trip through the engine and the WAL', async (t) => {
  const engine = await Engine.open(tempDir(t))
  await engine.commit(every_op, b('meta'))
  const [frame] = await engine.readFrames(0, 1, 1 << 20)
  t.same(frame?.commit.ops.map((op) => ({ ...op })), every_op)
  t.same(engine.snapshot().trees().map((tree) => tree.name), ['copy2', 'ŧree'])
  await engine.close()
})

t.test('fuzz: truncated and garbled payloads are refused, never misread', async (t) => {
  const payload = encodeCommit({ meta: b('m'), ops: every_op })
  t.same(decodeCommit(payload).ops.length, every_op.length)
  for (let len = 0; len < payload.length; len += 1) {
    t.throws(() => decodeCommit(payload.subarray(0, len)), { name: 'Error' }, `truncated at ${len}`)
  }
  t.throws(() => decodeCommit(Buffer.concat([payload, b('x')])), /trailing bytes/)
  const badVersion = Buffer.from(payload)
  badVersion[0] = 9
  t.throws(() => decodeCommit(badVersion), /unknown commit payload version/)
  const badTag = encodeCommit({ meta: b(''), ops: [{ op: 'pin', name: 'x' }] })
  badTag[9] = 42
  t.throws(() => decodeCommit(badTag), /unknown operation/)
})
