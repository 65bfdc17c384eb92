// One encoding of a commit (docs/format.md, "Commit payload"): the bytes TypeScript
// builds are the bytes of the WAL frame. CommitWriter writes the hand-written vector
// that Rust's `Commit::encode` is held to as well (crates/storage/tests/commit_vector.rs),
// the engine logs a payload as it was handed in, and a malformed one is refused with a
// typed error and changes nothing. A payload of format version 1 (WAL frames written
// before pin_prefix) is still read by both and logged as it is.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { decodeCommit, type Op } from '../src/engine/commit-codec.js'
import { CommitWriter, encodeCommit } from '../src/engine/commit-writer.js'
import { Engine, EngineError } from '../src/engine/index.js'
import { package_root } from '../src/package-root.js'
import { walFrames } from './helpers/damage-wal.js'
import { tempDir } from './helpers/temp-dir.js'

const b = (text: string) => Buffer.from(text)

const every_op: Op[] = [
  { op: 'put', tree: 'ŧree', key: b('k'), value: b('v') },
  { op: 'pin', name: 'p' },
  { op: 'pin_prefix', name: 'ŧenant', prefix: 'ŧ' },
  { op: 'copy_tree', from: 'ŧree', to: 'copy' },
  { op: 'copy_tree_from_pin', pin: 'p', from: 'ŧree', to: 'copy2' },
  { op: 'compact_tree', tree: 'ŧree' },
  { op: 'delete', tree: 'ŧree', key: b('k') },
  { op: 'unpin', name: 'p' },
  { op: 'drop_tree', tree: 'copy' },
]

/** A hand-written vector: hex pairs, `#` comments. */
function vectorFile(name: string): Buffer {
  const text = readFileSync(join(package_root, 'crates/storage/tests/vectors', name), 'utf8')
  return Buffer.from(text.split('\n').map((line) => line.split('#')[0]).join('').replace(/\s+/g, ''), 'hex')
}
const vector = () => vectorFile('commit_every_op.hex')
/** Format version 1: every operation but pin_prefix. */
const vector_v1 = () => vectorFile('commit_every_op_v1.hex')

/** The WAL frame payloads of `dir`, read from the segment files themselves. */
function framePayloads(dir: string): Map<number, Buffer> {
  const payloads = new Map<number, Buffer>()
  for (const frame of walFrames(dir)) {
    const at = frame.offset + 32
    payloads.set(frame.lsn, readFileSync(join(dir, 'wal', frame.segment)).subarray(at, at + frame.payload_len))
  }
  return payloads
}

t.test('CommitWriter writes the hand-written vector Rust\'s encoder writes', async (t) => {
  const writer = new CommitWriter()
  writer.put('t', b('k'), b('v1'))
  writer.op({ op: 'pin', name: 'p' })
  writer.op({ op: 'pin_prefix', name: 'q', prefix: 't/a/' })
  writer.op({ op: 'copy_tree', from: 't', to: 'c' })
  writer.op({ op: 'copy_tree_from_pin', pin: 'p', from: 't', to: 'd' })
  writer.op({ op: 'compact_tree', tree: 't' })
  writer.delete('t', b('k'))
  writer.op({ op: 'unpin', name: 'p' })
  writer.op({ op: 'drop_tree', tree: 'ŧ' })
  t.same(writer.finish(b('m1')).toString('hex'), vector().toString('hex'))
})

t.test('a version 1 payload is still decoded, committed and logged as it is; pin_prefix is not one of its operations', async (t) => {
  const v1 = vector_v1()
  t.equal(v1[0], 1)
  const decoded = decodeCommit(v1)
  t.same(decoded.meta.toString(), 'm1')
  t.same(decoded.ops.map((op) => op.op), ['put', 'pin', 'copy_tree', 'copy_tree_from_pin', 'compact_tree', 'delete', 'unpin', 'drop_tree'])
  t.same(decodeCommit(vector()).ops.map((op) => ({ ...op })), [...decoded.ops.slice(0, 2), { op: 'pin_prefix', name: 'q', prefix: 't/a/' }, ...decoded.ops.slice(2)].map((op) => ({ ...op })), 'version 2 reads the same operations and the pin prefix')
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  const lsn = await engine.commitPayload(v1)
  const [frame] = await engine.readFramePayloads(0, 10, 1 << 20)
  t.same([frame?.lsn, frame?.payload.toString('hex')], [lsn, v1.toString('hex')], 'logged in its own version')
  t.same(engine.snapshot().trees().map((tree) => tree.name), ['c', 'd', 't'])
  await engine.close()
  const prefixed = encodeCommit({ meta: b(''), ops: [{ op: 'pin_prefix', name: 'x', prefix: 't/' }] })
  prefixed[0] = 1
  t.throws(() => decodeCommit(prefixed), /unknown operation/, 'tag 9 in a version 1 payload')
})

t.test('CommitWriter: metadata of any size before operations that grew, and offsets that stay true', async (t) => {
  // Metadata from empty to far past the room kept before the operations (a copy then),
  // with operations that outgrow the first buffer several times.
  for (const meta_bytes of [0, 40, 151, 152, 153, 2000, 100_000]) {
    for (const reserved of [0, meta_bytes]) {
      const writer = new CommitWriter()
      const written: Array<{ at: number; key: Buffer; value: Buffer; view: Buffer }> = []
      for (let i = 0; i < 300; i += 1) {
        if (i === 1 && reserved > 0) writer.reserve(300 * 40, reserved)
        const key = b(`key-${i}`)
        const value = b(`value-${i}-`.repeat(1 + (i % 3)))
        const at = i % 7 === 6 ? writer.delete('t', key) : writer.put('t', key, value)
        // A view taken now, before the buffer grows again.
        const view = Buffer.from(writer.bytes.buffer, writer.bytes.byteOffset + writer.base + at, key.length)
        written.push({ at, key, value: i % 7 === 6 ? b('') : value, view })
      }
      const at = (start: number, len: number) => writer.bytes.subarray(writer.base + start, writer.base + start + len).toString()
      t.same(written.map((w) => at(w.at, w.key.length)), written.map((w) => w.key.toString()), 'each key is where its offset says, after growth')
      t.same(written.map((w) => at(w.at + w.key.length + 4, w.value.length)), written.map((w) => w.value.toString()), 'each value follows its key')
      t.same(written.map((w) => w.view.toString()), written.map((w) => w.key.toString()), 'views taken before growth still hold their keys')
      const meta = Buffer.alloc(meta_bytes, 0x6d)
      const payload = writer.finish(meta)
      const decoded = decodeCommit(payload)
      t.same(decoded.meta, meta)
      t.equal(decoded.ops.length, 300)
      t.same(decoded.ops.map((op) => (op.op === 'put' ? [op.key.toString(), op.value.toString()] : op.op === 'delete' ? [op.key.toString()] : [])),
        written.map(({ key, value }) => (value.length > 0 ? [key.toString(), value.toString()] : [key.toString()])))
    }
  }
})

t.test('the bytes committed are the bytes of the WAL frame, and read back decoded', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  const sent = [vector(), encodeCommit({ meta: b('meta'), ops: every_op })]
  const lsns: number[] = []
  for (const payload of sent) lsns.push(await engine.commitPayload(payload))
  const read = await engine.readFramePayloads(0, 10, 1 << 20)
  t.same(read.map((f) => f.lsn), lsns)
  t.same(read.map((f) => f.payload.toString('hex')), sent.map((p) => p.toString('hex')), 'readFrames hands back the bytes sent')
  const onDisk = framePayloads(dir)
  t.same(lsns.map((lsn) => onDisk.get(lsn)?.toString('hex')), sent.map((p) => p.toString('hex')), 'the segment file holds them as they were sent')
  const [, frame] = await engine.readFrames(0, 10, 1 << 20)
  t.same(frame?.commit.ops.map((op) => ({ ...op })), every_op)
  t.same(engine.snapshot().trees().map((tree) => tree.name), ['c', 'copy2', 'd', 't', 'ŧree'])
  await engine.close()
})

/** A payload the engine must refuse, and why. */
function malformed(): Array<[string, Buffer, RegExp]> {
  const payload = encodeCommit({ meta: b('m'), ops: every_op })
  const cases: Array<[string, Buffer, RegExp]> = []
  for (let len = 0; len < payload.length; len += 1) cases.push([`truncated at ${len}`, payload.subarray(0, len), /malformed/])
  cases.push(['a byte appended', Buffer.concat([payload, b('x')]), /1 bytes follow the last operation/])
  const version = Buffer.from(payload)
  version[0] = 9
  cases.push(['version 9', version, /format version 9/])
  const tag = encodeCommit({ meta: b(''), ops: [{ op: 'pin', name: 'x' }] })
  tag[9] = 42
  cases.push(['tag 42', tag, /operation 1 of 1: unknown operation tag 42/])
  const count = encodeCommit({ meta: b(''), ops: [{ op: 'pin', name: 'x' }] })
  count.writeUInt32LE(0xffffffff, 5)
  cases.push(['an operation count past the end', count, /operations cannot fit/])
  cases.push(['an empty tree name', encodeCommit({ meta: b(''), ops: [{ op: 'drop_tree', tree: '' }] }), /tree name must be 1 to 255 bytes/])
  cases.push(['a key over 1 KiB', encodeCommit({ meta: b(''), ops: [{ op: 'delete', tree: 't', key: Buffer.alloc(1025) }] }), /key of 1025 bytes exceeds 1024/])
  return cases
}

t.test('fuzz: malformed payloads are refused with invalid_argument naming the fault, and change nothing', async (t) => {
  const dir = tempDir(t)
  const engine = await Engine.open(dir)
  const first = await engine.commit([{ op: 'put', tree: 't', key: b('k'), value: b('v') }])
  for (const [name, payload, why] of malformed()) {
    const err = await engine.commitPayload(payload).then(() => undefined, (e: unknown) => e)
    t.type(err, EngineError, name)
    t.match(err, { code: 'invalid_argument', message: why }, name)
  }
  t.equal(engine.headLsn(), first, 'no LSN was taken')
  t.same((await engine.readFramePayloads(0, 100, 1 << 20)).map((f) => f.lsn), [first], 'nothing reached the WAL')
  t.same(engine.snapshot().trees().map((tree) => [tree.name, tree.count]), [['t', 1]])
  t.equal(await engine.commit([{ op: 'put', tree: 't', key: b('k2'), value: b('v') }]), first + 1, 'the next commit takes the next LSN')
  await engine.close()
})

t.test('fuzz: a payload with a flipped bit is refused, or logged exactly as sent', async (t) => {
  const engine = await Engine.open(tempDir(t))
  const payload = encodeCommit({ meta: b('m'), ops: every_op })
  // A fixed sample of bit positions (xorshift), so a failure replays.
  let state = 0x9e3779b9
  const next = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return state >>> 0
  }
  let refused = 0
  let logged = 0
  for (let n = 0; n < 120; n += 1) {
    const bit = next() % (payload.length * 8)
    const flipped = Buffer.from(payload)
    flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7))
    const head = engine.headLsn()
    const result = await engine.commitPayload(flipped).then((lsn) => lsn, (e: unknown) => e)
    if (typeof result === 'number') {
      logged += 1
      const [frame] = await engine.readFramePayloads(result - 1, 1, 1 << 20)
      t.equal(frame?.payload.toString('hex'), flipped.toString('hex'), `bit ${bit}: logged as sent`)
    } else {
      refused += 1
      t.match(result, { name: 'EngineError', code: 'invalid_argument' }, `bit ${bit}`)
      t.equal(engine.headLsn(), head, `bit ${bit}: refused, and nothing was logged`)
    }
  }
  t.ok(refused > 0 && logged > 0, `both outcomes were met: ${refused} refused, ${logged} logged`)
  await engine.close()
})

t.test('fuzz: the TypeScript decoder refuses truncated and garbled payloads, never misreads them', async (t) => {
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
