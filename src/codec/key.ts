// Order-preserving key encoding: Buffer.compare (memcmp, as the Rust B-trees order keys)
// of two encoded keys has the sign of compareValues on the values, component by
// component. A key is a tuple of values (one for a primary key; several for a
// multi-field index, with the primary key appended to make the entry unique).
//
// | tag    | value            | payload after the tag                                       |
// |--------|------------------|-------------------------------------------------------------|
// | —      | tuple            | its components' encodings, concatenated (no count, no end)  |
// | `0x00` | end of list/record | (never a value's tag; sorts before every tag)             |
// | `0x05` | null             | none                                                        |
// | `0x10` | false            | none                                                        |
// | `0x11` | true             | none                                                        |
// | `0x20` | number           | 8 bytes: IEEE-754 float64 big-endian; positive (and 0): sign bit flipped; negative: all bits flipped |
// | `0x30` | string           | UTF-8, each 0x00 written as 0x00 0xFF, then 0x00 0x00        |
// | `0x40` | timestamp        | 8 bytes: ms since the epoch, encoded like a number          |
// | `0x50` | list             | each element's encoding (tag included), then 0x00           |
// | `0x60` | record           | per field, in code-point order of names: name as a string (tag 0x30 included), value; then 0x00 |
//
// Why this works: each encoding is self-delimiting and none is a proper prefix of
// another, so concatenation orders tuples lexicographically, and a tuple's first k
// components are a byte prefix of its key (range scans on leading components). Tags
// rise with kind_rank (kind.ts) and leave gaps for future kinds. ints and floats share
// one number encoding (all Eel ints are exact in float64), so int 3 and float 3.0 give
// the same bytes; -0 is written as 0 and NaN is refused. Strings end with 0x00 0x00,
// below the 0x00 0xFF of an escaped NUL and below every other byte, so a string sorts
// before its extensions; the decoder accepts only what the encoder writes (canonical).
import type { Value } from '../lang/ast.js'
import { compareStrings, sortedNames } from './compare.js'
import { ByteWriter } from './byte-writer.js'
import { CodecError } from './error.js'
import { defineField, kindOf, nesting_depth_max, timestamp_ms_max, type Kind, type RecordValue } from './kind.js'
import { asBuffer, checkWellFormed, decodeUtf8 } from './utf8.js'

export const key_tag = {
  end: 0x00, null: 0x05, false: 0x10, true: 0x11, number: 0x20, string: 0x30, timestamp: 0x40, list: 0x50, record: 0x60,
} as const

/** [first tag, last tag + 1) of each kind: every key whose component is of that kind starts in it. */
export const kind_tags: Readonly<Record<Kind, readonly [number, number]>> = {
  null: [0x05, 0x06], bool: [0x10, 0x12], number: [0x20, 0x21], string: [0x30, 0x31],
  timestamp: [0x40, 0x41], list: [0x50, 0x51], record: [0x60, 0x61],
}

/** Encodes a tuple of values as one key. Throws CodecError for values with no place in the order. */
export function encodeKey(values: readonly Value[]): Buffer {
  const out = new Writer()
  for (const value of values) writeValue(out, value, 0)
  return out.take()
}

/**
 * encodeKey([value]) into a scratch buffer that the next call overwrites: for a caller
 * that copies the bytes at once (a bulk insert's duplicate check and put), so a row
 * costs no key buffer of its own.
 */
export function encodeKeyScratch(value: Value): Buffer {
  const out = scratch_key
  if (out.buf.length > scratch_key_bytes_kept) out.buf = Buffer.allocUnsafe(64) // one huge key need not pin its scratch
  out.at = 0
  writeValue(out, value, 0)
  return out.take()
}

/** Decodes a key written by encodeKey; throws CodecError for any bytes it would not have written. */
export function decodeKey(buf: Uint8Array): Value[] {
  const reader = { buf: asBuffer(buf), at: 0 }
  const values: Value[] = []
  while (reader.at < buf.length) values.push(readValue(reader, 0))
  return values
}

/**
 * The smallest byte string greater than every key that starts with `prefix`, i.e. the
 * exclusive end of a prefix scan [prefix, prefixEnd(prefix)). null when there is none
 * (an empty prefix or all 0xFF bytes): scan to the end of the tree.
 */
export function prefixEnd(prefix: Uint8Array): Buffer | null {
  let end = prefix.length
  while (end > 0 && prefix[end - 1] === 0xff) end -= 1
  if (end === 0) return null
  const out = Buffer.from(prefix.subarray(0, end))
  out[end - 1] = (out[end - 1] as number) + 1
  return out
}

class Writer extends ByteWriter {
  constructor() {
    super(64)
  }

  byte(b: number): void {
    this.ensure(1)
    this.buf[this.at++] = b
  }

  // Sign-flipped big-endian float64: memcmp order equals numeric order.
  float(tag: number, x: number): void {
    this.ensure(9)
    this.buf[this.at++] = tag
    this.buf.writeDoubleBE(x === 0 ? 0 : x, this.at)
    if (((this.buf[this.at] as number) & 0x80) === 0) {
      this.buf[this.at] = (this.buf[this.at] as number) ^ 0x80
    } else {
      for (let i = this.at; i < this.at + 8; i += 1) this.buf[i] = ~(this.buf[i] as number) & 0xff
    }
    this.at += 8
  }

  string(text: string): void {
    // ASCII without NUL (the common key) is written as it is: no escapes, no lone
    // surrogate possible, no UTF-8 encoding pass.
    const n = text.length
    this.ensure(n + 3)
    const buf = this.buf
    const start = this.at
    let i = 0
    for (; i < n; i += 1) {
      const c = text.charCodeAt(i)
      if (c === 0 || c >= 0x80) break
      buf[start + 1 + i] = c
    }
    if (i === n) {
      buf[start] = key_tag.string
      buf[start + 1 + n] = 0
      buf[start + 2 + n] = 0
      this.at = start + n + 3
      return
    }
    checkWellFormed(text, 'key string')
    const bytes = Buffer.from(text, 'utf8')
    this.ensure(bytes.length * 2 + 3)
    this.buf[this.at++] = key_tag.string
    for (const b of bytes) {
      this.buf[this.at++] = b
      if (b === 0) this.buf[this.at++] = 0xff
    }
    this.buf[this.at++] = 0
    this.buf[this.at++] = 0
  }

  take(): Buffer {
    return this.buf.subarray(0, this.at)
  }
}

// Reused by encodeKeyScratch (encoding is synchronous and not re-entrant).
const scratch_key = new Writer()
const scratch_key_bytes_kept = 64 * 1024

function writeValue(out: Writer, value: Value, depth: number): void {
  switch (kindOf(value)) {
    case 'null': return out.byte(key_tag.null)
    case 'bool': return out.byte(value === true ? key_tag.true : key_tag.false)
    case 'number': return out.float(key_tag.number, value as number)
    case 'string': return out.string(value as string)
    case 'timestamp': return out.float(key_tag.timestamp, (value as Date).getTime())
    case 'list':
      depth = deeper(depth)
      out.byte(key_tag.list)
      for (const item of value as Value[]) writeValue(out, item, depth)
      return out.byte(key_tag.end)
    case 'record': {
      depth = deeper(depth)
      const record = value as RecordValue
      out.byte(key_tag.record)
      for (const name of sortedNames(record)) {
        out.string(name)
        writeValue(out, record[name] as Value, depth)
      }
      return out.byte(key_tag.end)
    }
  }
}

function deeper(depth: number): number {
  if (depth >= nesting_depth_max) throw new CodecError(`key value nests deeper than ${nesting_depth_max} levels`)
  return depth + 1
}

interface Reader {
  buf: Buffer
  at: number
}

function readValue(r: Reader, depth: number): Value {
  const tag = next(r)
  switch (tag) {
    case key_tag.null: return null
    case key_tag.false: return false
    case key_tag.true: return true
    case key_tag.number: return readFloat(r)
    case key_tag.string: return readString(r)
    case key_tag.timestamp: {
      const ms = readFloat(r)
      if (!Number.isInteger(ms) || Math.abs(ms) > timestamp_ms_max) throw new CodecError('key timestamp is out of range')
      return new Date(ms)
    }
    case key_tag.list: {
      depth = deeper(depth)
      const items: Value[] = []
      while (peek(r) !== key_tag.end) items.push(readValue(r, depth))
      r.at += 1
      return items
    }
    case key_tag.record: {
      depth = deeper(depth)
      const record: RecordValue = {}
      let previous: string | null = null
      while (peek(r) !== key_tag.end) {
        if (next(r) !== key_tag.string) throw new CodecError('key record field name is not a string')
        const name = readString(r)
        if (previous !== null && compareStrings(previous, name) >= 0) throw new CodecError('key record fields are not in order')
        defineField(record, name, readValue(r, depth))
        previous = name
      }
      r.at += 1
      return record
    }
    default:
      throw new CodecError(`unknown key tag 0x${tag.toString(16).padStart(2, '0')}`)
  }
}

function next(r: Reader): number {
  if (r.at >= r.buf.length) throw new CodecError('key is truncated')
  return r.buf[r.at++] as number
}

function peek(r: Reader): number {
  if (r.at >= r.buf.length) throw new CodecError('key is truncated')
  return r.buf[r.at] as number
}

const scratch = new DataView(new ArrayBuffer(8))

function readFloat(r: Reader): number {
  if (r.at + 8 > r.buf.length) throw new CodecError('key is truncated')
  const positive = ((r.buf[r.at] as number) & 0x80) !== 0
  for (let i = 0; i < 8; i += 1) {
    const b = r.buf[r.at + i] as number
    scratch.setUint8(i, positive ? (i === 0 ? b ^ 0x80 : b) : ~b & 0xff)
  }
  r.at += 8
  const x = scratch.getFloat64(0)
  // The encoder never writes NaN or -0: such bytes are not a key.
  if (Number.isNaN(x) || Object.is(x, -0)) throw new CodecError('key number is not canonical')
  return x
}

function readString(r: Reader): string {
  const start = r.at
  let escapes = 0
  for (;;) {
    const b = next(r)
    if (b !== 0) continue
    const after = next(r)
    if (after === 0) break
    if (after !== 0xff) throw new CodecError('key string has a bad escape')
    escapes += 1
  }
  const end = r.at - 2
  if (escapes === 0) return decodeUtf8(r.buf, start, end)
  const bytes = Buffer.allocUnsafe(end - start - escapes)
  let n = 0
  for (let i = start; i < end; i += 1) {
    const b = r.buf[i] as number
    bytes[n++] = b
    if (b === 0) i += 1
  }
  return decodeUtf8(bytes, 0, n)
}
