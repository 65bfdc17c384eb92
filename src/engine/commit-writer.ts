// Writes a commit in the format of commit-codec.ts operation by operation into one
// growing buffer, so a transaction of a million rows crosses the binding as one
// Buffer, with no JS object per operation and no second encoding pass.
//
// The metadata comes first in the format but is known last (the change letters of the
// rows), so the buffer keeps room for it before the operations: `finish` writes the
// format version, the metadata and the operation count right before them and hands
// out that stretch of the buffer, with no copy of the operations. Only metadata larger
// than the room left (`reserve` takes a size for it) costs one copy of the whole.
//
// | buffer bytes         | holds                                                   |
// |----------------------|---------------------------------------------------------|
// | [0, start)           | room for version (1), meta length (4), meta, count (4)  |
// | [start, at)          | the operations written so far                           |
//
// Offsets handed out (`put`, `delete`) count from `start`, so they stay valid when
// the buffer grows (the operations move as one block). Operation bytes are never
// written again once written: a view of them stays valid too.
import { commit_format_version, op_tags, type CommitRecord, type Op } from './commit-codec.js'
import { treeNameBytes } from './tree-names.js'

/** Small enough to come from Node's shared buffer pool (under 4 KiB). */
const initial_bytes = 512
/** Room for a one-row commit's metadata (the service's header is about 90 bytes). */
const header_room_initial = 160
/** Version byte, metadata length and operation count around the metadata. */
const header_framing_bytes = 9

export class CommitWriter {
  #buf = Buffer.allocUnsafe(initial_bytes)
  #start = header_room_initial
  #at = header_room_initial
  #count = 0

  /** Operations written so far. */
  get count(): number {
    return this.#count
  }

  /**
   * The buffer the operations are in now, and where they begin in it (`base`): an
   * offset handed out by put or delete is at `base + offset` of `bytes`. Both change
   * when the buffer grows.
   */
  get bytes(): Buffer {
    return this.#buf
  }

  get base(): number {
    return this.#start
  }

  /**
   * Makes room at once for about `bytes` more bytes of operations, and for metadata of
   * about `meta_bytes` (a bulk insert that knows its row count), so the buffer is not
   * copied each time it would double, nor the whole commit by `finish`.
   */
  reserve(bytes: number, meta_bytes = 0): void {
    const start = Math.max(this.#start, meta_bytes + header_framing_bytes)
    if (start === this.#start && this.#at + bytes <= this.#buf.length) return
    this.#move(start, start + (this.#at - this.#start) + bytes)
  }

  /** Returns the offset of the key's bytes; the value's follow at `offset + key.length + 4`. */
  put(tree: string, key: Uint8Array, value: Uint8Array): number {
    this.#tag(op_tags.put)
    this.#name(tree)
    const at = this.#bytes(key)
    this.#bytes(value)
    return at
  }

  /** Returns the offset of the key's bytes. */
  delete(tree: string, key: Uint8Array): number {
    this.#tag(op_tags.delete)
    this.#name(tree)
    return this.#bytes(key)
  }

  /** Any operation (put and delete have their own, allocation-free, methods). */
  op(op: Op): void {
    switch (op.op) {
      case 'put': this.put(op.tree, op.key, op.value); return
      case 'delete': this.delete(op.tree, op.key); return
      case 'drop_tree': case 'compact_tree': return this.#names(op_tags[op.op], op.tree)
      case 'copy_tree': return this.#names(op_tags.copy_tree, op.from, op.to)
      case 'copy_tree_from_pin': return this.#names(op_tags.copy_tree_from_pin, op.pin, op.from, op.to)
      case 'pin': case 'unpin': return this.#names(op_tags[op.op], op.name)
      case 'pin_prefix': return this.#names(op_tags.pin_prefix, op.name, op.prefix)
    }
  }

  /**
   * The whole payload: format version, `meta`, the operation count, the operations.
   * A view of this writer's buffer when `meta` fits the room before the operations
   * (no copy), else a new Buffer. Nothing may be written after it.
   */
  finish(meta: Uint8Array): Buffer {
    const head = header_framing_bytes + meta.length
    if (head > this.#start) this.#move(head, head + this.#at - this.#start)
    const buf = this.#buf
    const from = this.#start - head
    buf[from] = commit_format_version
    buf.writeUInt32LE(meta.length, from + 1)
    buf.set(meta, from + 5)
    buf.writeUInt32LE(this.#count, this.#start - 4)
    return buf.subarray(from, this.#at)
  }

  /** Copies the operations into a new buffer of `bytes`, beginning at `start`. */
  #move(start: number, bytes: number): void {
    const moved = Buffer.allocUnsafe(bytes)
    this.#buf.copy(moved, start, this.#start, this.#at)
    this.#at = start + (this.#at - this.#start)
    this.#start = start
    this.#buf = moved
  }

  #ensure(n: number): void {
    if (this.#at + n <= this.#buf.length) return
    this.#move(this.#start, Math.max(this.#buf.length * 2, this.#at + n))
  }

  #tag(tag: number): void {
    this.#count += 1
    this.#ensure(1)
    this.#buf[this.#at++] = tag
  }

  #names(tag: number, ...names: string[]): void {
    this.#tag(tag)
    for (const name of names) this.#name(name)
  }

  #name(name: string): void {
    this.#bytes(treeNameBytes(name))
  }

  /** Appends `bytes` with their length; returns their offset from the operations' start. */
  #bytes(bytes: Uint8Array): number {
    this.#ensure(4 + bytes.length)
    const buf = this.#buf
    const at = buf.writeUInt32LE(bytes.length, this.#at)
    buf.set(bytes, at)
    this.#at = at + bytes.length
    return at - this.#start
  }
}

/** The payload of a whole commit. */
export function encodeCommit(commit: CommitRecord): Buffer {
  const writer = new CommitWriter()
  for (const op of commit.ops) writer.op(op)
  return writer.finish(commit.meta)
}
