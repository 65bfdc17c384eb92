// Writes a commit in the format of commit-codec.ts operation by operation into one
// growing buffer, so a transaction of a million rows crosses the binding as one
// Buffer, with no JS object per operation and no second encoding pass. The metadata
// comes first in the format but is known last (the change letters of the rows), so
// `finish` puts the header before the operations with one copy.
import { ByteWriter } from '../codec/byte-writer.js'
import { commit_format_version, op_tags, type CommitRecord, type Op } from './commit-codec.js'
import { treeNameBytes } from './tree-names.js'

const initial_bytes = 4096

export class CommitWriter {
  readonly #out = new ByteWriter(initial_bytes)
  #count = 0

  /** Operations written so far. */
  get count(): number {
    return this.#count
  }

  /**
   * Makes room for about `bytes` more bytes of operations at once (a bulk insert that
   * knows its row count), so the buffer is not copied each time it would double.
   */
  reserve(bytes: number): void {
    this.#out.ensure(bytes)
  }

  put(tree: string, key: Uint8Array, value: Uint8Array): void {
    this.#tag(op_tags.put)
    this.#name(tree)
    this.#bytes(key)
    this.#bytes(value)
  }

  delete(tree: string, key: Uint8Array): void {
    this.#tag(op_tags.delete)
    this.#name(tree)
    this.#bytes(key)
  }

  /** Any operation (put and delete have their own, allocation-free, methods). */
  op(op: Op): void {
    switch (op.op) {
      case 'put': return this.put(op.tree, op.key, op.value)
      case 'delete': return this.delete(op.tree, op.key)
      case 'drop_tree': case 'compact_tree': return this.#names(op_tags[op.op], op.tree)
      case 'copy_tree': return this.#names(op_tags.copy_tree, op.from, op.to)
      case 'copy_tree_from_pin': return this.#names(op_tags.copy_tree_from_pin, op.pin, op.from, op.to)
      case 'pin': case 'unpin': return this.#names(op_tags[op.op], op.name)
    }
  }

  /** The whole payload: format version, `meta`, the operation count, the operations. */
  finish(meta: Uint8Array): Buffer {
    const body = this.#out.at
    const out = Buffer.allocUnsafe(1 + 4 + meta.length + 4 + body)
    let at = out.writeUInt8(commit_format_version, 0)
    at = out.writeUInt32LE(meta.length, at)
    out.set(meta, at)
    at = out.writeUInt32LE(this.#count, at + meta.length)
    this.#out.buf.copy(out, at, 0, body)
    return out
  }

  #tag(tag: number): void {
    this.#count += 1
    const w = this.#out
    w.ensure(1)
    w.buf[w.at++] = tag
  }

  #names(tag: number, ...names: string[]): void {
    this.#tag(tag)
    for (const name of names) this.#name(name)
  }

  #name(name: string): void {
    this.#bytes(treeNameBytes(name))
  }

  #bytes(bytes: Uint8Array): void {
    const w = this.#out
    w.ensure(4 + bytes.length)
    w.at = w.buf.writeUInt32LE(bytes.length, w.at)
    w.buf.set(bytes, w.at)
    w.at += bytes.length
  }
}

/** The payload of a whole commit. */
export function encodeCommit(commit: CommitRecord): Buffer {
  const writer = new CommitWriter()
  for (const op of commit.ops) writer.op(op)
  return writer.finish(commit.meta)
}
