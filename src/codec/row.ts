// Row codec: a row (a record of Eel values) as the bytes stored as a B-tree value.
// (Decision and measurements: see the comment block below, filled in from bench/row-codec.ts.)
//
// | part        | bytes                                                                   |
// |-------------|-------------------------------------------------------------------------|
// | version     | `0x01`                                                                  |
// | field count | varint                                                                  |
// | each field  | name (varint byte length, UTF-8), then its value                        |
//
// | tag    | value                   | payload                                          |
// |--------|-------------------------|--------------------------------------------------|
// | `0x00` | null                    | none                                             |
// | `0x01` | false                   | none                                             |
// | `0x02` | true                    | none                                             |
// | `0x03` | integer ≥ 0             | varint n                                         |
// | `0x04` | integer < 0             | varint -n (never 0)                              |
// | `0x05` | float                   | 8 bytes IEEE-754 float64, little-endian (never NaN) |
// | `0x06` | string                  | varint byte length, UTF-8                        |
// | `0x07` | timestamp ≥ epoch       | varint ms                                        |
// | `0x08` | timestamp < epoch       | varint -ms                                       |
// | `0x09` | list                    | varint count, then each value                    |
// | `0x0A` | record (json)           | varint count, then each field as above           |
//
// varint: unsigned LEB128, 7 bits a byte, low first, at most 8 bytes and at most
// 2^53 - 1, no overlong forms. Signs live in the tag because a zigzag of ±(2^53 - 1)
// needs 54 bits, more than a JS number holds exactly.
//
// Numbers: JS has one number type, so the codec cannot and need not tell int 3 from
// float 3.0: both are the same JS value, written with the integer tag. A safe integer
// (|n| < 2^53, and not -0) uses 0x03/0x04, anything else (fractions, ±Infinity, -0,
// floats beyond 2^53) 0x05, so every number reads back as the identical JS value
// (Object.is), including -0. Whether a field is float is the schema's business: a
// float field holding 3 is shown as 3.0 by whoever formats it with the schema, and a
// json field cannot keep 3.0 apart from 3 anyway (JSON has one number type).
//
// Field names are written once per row, in the row's own (Object.keys) order;
// the row is self-describing, so json fields, old rows after a schema migration and
// tools without the schema all read it the same way.
//
// The decoder refuses (CodecError) anything the encoder would not write: unknown tags,
// truncation, trailing bytes, invalid UTF-8, duplicate field names, NaN, a float tag on
// a safe integer, overlong varints, out-of-range integers and dates, nesting deeper
// than nesting_depth_max. Counts and lengths are checked against the bytes left before
// anything is allocated, so it cannot hang. Accepted bytes are canonical: re-encoding
// the row gives them back, except that JS objects list integer-like names ("7") first
// whatever order they were written in.
import type { Value } from '../lang/ast.js'
import { CodecError } from './error.js'
import { defineField } from './key.js'
import { kindOf, nesting_depth_max, timestamp_ms_max, type RecordValue } from './kind.js'
import { asBuffer, checkWellFormed, decodeName, decodeUtf8 } from './utf8.js'

const row_format_version = 0x01

export const row_tag = {
  null: 0x00, false: 0x01, true: 0x02, uint: 0x03, negint: 0x04, float: 0x05, string: 0x06,
  timestamp: 0x07, timestamp_neg: 0x08, list: 0x09, record: 0x0a,
} as const

/** Encodes a row; throws CodecError for a value Eel cannot store (NaN, undefined, a Map, a cycle, …). */
export function encodeRow(row: Record<string, Value>): Buffer {
  if (kindOf(row) !== 'record') throw new CodecError('a row must be a record')
  const w = writer
  w.at = 0
  w.ensure(1)
  w.buf[w.at++] = row_format_version
  writeFields(w, row, 0)
  const out = Buffer.allocUnsafe(w.at)
  out.set(new Uint8Array(w.buf.buffer, w.buf.byteOffset, w.at)) // TypedArray#set: cheaper than Buffer#copy
  if (w.buf.length > scratch_bytes_kept) w.buf = Buffer.allocUnsafe(scratch_bytes_initial) // one huge row need not pin its scratch
  return out
}

/** Decodes bytes written by encodeRow; throws CodecError for anything else. */
export function decodeRow(buf: Uint8Array): Record<string, Value> {
  const r: Reader = { buf: asBuffer(buf), at: 0 }
  if (buf.length === 0 || buf[0] !== row_format_version) throw new CodecError('unknown row format version')
  r.at = 1
  const row = readFields(r, 0)
  if (r.at !== buf.length) throw new CodecError('row has trailing bytes')
  return row
}

// ---- encoding ----

const scratch_bytes_initial = 64 * 1024
const scratch_bytes_kept = 2 * 1024 * 1024

class Writer {
  buf = Buffer.allocUnsafe(scratch_bytes_initial)
  at = 0

  ensure(n: number): void {
    if (this.at + n <= this.buf.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n))
    this.buf.copy(grown, 0, 0, this.at)
    this.buf = grown
  }
}

// One scratch buffer reused by every call (encoding is synchronous and not re-entrant);
// each row is copied out at its exact size.
const writer = new Writer()

function writeVarint(w: Writer, n: number): void {
  w.ensure(8)
  const buf = w.buf
  while (n >= 0x80) {
    buf[w.at++] = (n % 0x80) | 0x80
    n = Math.floor(n / 0x80)
  }
  buf[w.at++] = n
}

function writeString(w: Writer, text: string): void {
  const n = text.length
  // Up to 42 units the UTF-8 length is at most 126 bytes, one varint byte: write the
  // string behind it and fill the length in after. Very short ones are copied in JS,
  // longer ones by Buffer's encoder (measured: the native call costs ~45 ns, a loop ~2.5 ns a unit).
  if (n <= 20) {
    w.ensure(n + 1)
    const buf = w.buf
    let i = 0
    for (; i < n; i += 1) {
      const c = text.charCodeAt(i)
      if (c >= 0x80) break
      buf[w.at + 1 + i] = c
    }
    if (i === n) {
      buf[w.at] = n
      w.at += n + 1
      return
    }
  }
  if (n <= 42) {
    w.ensure(3 * n + 1)
    const bytes = (w.buf as unknown as FastWrites).utf8Write(text, w.at + 1, 3 * n)
    if (bytes !== n) checkWellFormed(text, 'string')
    w.buf[w.at] = bytes
    w.at += bytes + 1
    return
  }
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes !== n) checkWellFormed(text, 'string')
  writeVarint(w, bytes)
  w.ensure(bytes)
  w.at += (w.buf as unknown as FastWrites).utf8Write(text, w.at, bytes)
}

// Equal unit and byte counts mean every unit is ASCII; otherwise the string may hold a
// lone surrogate, which Buffer would write as U+FFFD, hence checkWellFormed.
// utf8Write is what Buffer.write calls after checking its arguments (as utf8Slice in
// utf8.ts); the capacity is ensured before every call.
interface FastWrites {
  utf8Write(text: string, offset: number, length: number): number
}

function writeFields(w: Writer, record: RecordValue, depth: number): void {
  const names = Object.keys(record)
  writeVarint(w, names.length)
  for (const name of names) {
    writeString(w, name)
    writeValue(w, record[name] as Value, depth)
  }
}

function writeValue(w: Writer, value: Value, depth: number): void {
  switch (typeof value) {
    case 'string':
      w.ensure(1)
      w.buf[w.at++] = row_tag.string
      return writeString(w, value)
    case 'number':
      return writeNumber(w, value)
    case 'boolean':
      w.ensure(1)
      w.buf[w.at++] = value ? row_tag.true : row_tag.false
      return
  }
  switch (kindOf(value)) {
    case 'null':
      w.ensure(1)
      w.buf[w.at++] = row_tag.null
      return
    case 'timestamp': {
      const ms = (value as Date).getTime()
      w.ensure(1)
      w.buf[w.at++] = ms < 0 ? row_tag.timestamp_neg : row_tag.timestamp
      return writeVarint(w, Math.abs(ms))
    }
    case 'list': {
      const items = value as Value[]
      if (depth >= nesting_depth_max) throw tooDeep()
      w.ensure(1)
      w.buf[w.at++] = row_tag.list
      writeVarint(w, items.length)
      // An index loop, not for-of: a hole in a sparse array must be seen (and refused).
      for (let i = 0; i < items.length; i += 1) writeValue(w, items[i] as Value, depth + 1)
      return
    }
    case 'record':
      if (depth >= nesting_depth_max) throw tooDeep()
      w.ensure(1)
      w.buf[w.at++] = row_tag.record
      return writeFields(w, value as RecordValue, depth + 1)
    default:
      throw new CodecError('unreachable: kindOf classified a scalar as a container')
  }
}

function writeNumber(w: Writer, n: number): void {
  w.ensure(9)
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) {
    w.buf[w.at++] = n < 0 ? row_tag.negint : row_tag.uint
    return writeVarint(w, n < 0 ? -n : n)
  }
  if (Number.isNaN(n)) throw new CodecError('NaN is not a storable value')
  w.buf[w.at++] = row_tag.float
  w.at = w.buf.writeDoubleLE(n, w.at)
}

// Reading a float through a typed-array view beats readDoubleLE's JS implementation
// (profiled). The view has the platform's byte order; the format is little-endian.
const float_view = new Float64Array(1)
const float_bytes = new Uint8Array(float_view.buffer)
const native_little_endian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

function tooDeep(): CodecError {
  return new CodecError(`row nests deeper than ${nesting_depth_max} levels`)
}

// ---- decoding ----

interface Reader {
  buf: Buffer
  at: number
}

function truncated(): CodecError {
  return new CodecError('row is truncated')
}

function readVarint(r: Reader): number {
  const buf = r.buf
  if (r.at >= buf.length) throw truncated()
  let b = buf[r.at++] as number
  if (b < 0x80) return b
  let n = b & 0x7f
  let scale = 0x80
  for (let i = 1; i < 8; i += 1) {
    if (r.at >= buf.length) throw truncated()
    b = buf[r.at++] as number
    n += (b & 0x7f) * scale
    if (b < 0x80) {
      if (b === 0) throw new CodecError('row has an overlong varint')
      if (n > Number.MAX_SAFE_INTEGER) throw new CodecError('row varint exceeds 2^53 - 1')
      return n
    }
    scale *= 0x80
  }
  throw new CodecError('row varint is longer than 8 bytes')
}

/** A count of items, each at least one byte: more than the bytes left cannot be right. */
function readCount(r: Reader): number {
  const n = readVarint(r)
  if (n > r.buf.length - r.at) throw truncated()
  return n
}

function readString(r: Reader): string {
  const length = readCount(r)
  const start = r.at
  r.at += length
  return decodeUtf8(r.buf, start, r.at)
}

function readFields(r: Reader, depth: number): RecordValue {
  const count = readCount(r)
  const record: RecordValue = {}
  for (let i = 0; i < count; i += 1) {
    const length = readCount(r)
    const name = decodeName(r.buf, r.at, (r.at += length))
    if (Object.hasOwn(record, name)) throw new CodecError(`row repeats field "${name}"`)
    if (name === '__proto__') defineField(record, name, readValue(r, depth))
    else record[name] = readValue(r, depth)
  }
  return record
}

function readValue(r: Reader, depth: number): Value {
  if (r.at >= r.buf.length) throw truncated()
  const tag = r.buf[r.at++] as number
  switch (tag) {
    case row_tag.null: return null
    case row_tag.false: return false
    case row_tag.true: return true
    case row_tag.uint: return readVarint(r)
    case row_tag.negint: {
      const n = readVarint(r)
      if (n === 0) throw new CodecError('row has a negative zero integer')
      return -n
    }
    case row_tag.float: {
      if (r.at + 8 > r.buf.length) throw truncated()
      for (let i = 0; i < 8; i += 1) float_bytes[native_little_endian ? i : 7 - i] = r.buf[r.at + i] as number
      const x = float_view[0] as number
      r.at += 8
      // NaN is never stored; a safe integer would have been written with an integer tag.
      if (Number.isNaN(x) || (Number.isSafeInteger(x) && !Object.is(x, -0))) throw new CodecError('row float is not canonical')
      return x
    }
    case row_tag.string: return readString(r)
    case row_tag.timestamp: case row_tag.timestamp_neg: {
      const ms = readVarint(r)
      if (ms > timestamp_ms_max || (tag === row_tag.timestamp_neg && ms === 0)) throw new CodecError('row timestamp is out of range')
      return new Date(tag === row_tag.timestamp_neg ? -ms : ms)
    }
    case row_tag.list: {
      if (depth >= nesting_depth_max) throw tooDeep()
      const count = readCount(r)
      const items: Value[] = new Array<Value>(count)
      for (let i = 0; i < count; i += 1) items[i] = readValue(r, depth + 1)
      return items
    }
    case row_tag.record:
      if (depth >= nesting_depth_max) throw tooDeep()
      return readFields(r, depth + 1)
    default:
      throw new CodecError(`unknown row tag 0x${tag.toString(16).padStart(2, '0')}`)
  }
}
