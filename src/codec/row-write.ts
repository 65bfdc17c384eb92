// Writes the row format of row.ts into one reusable scratch buffer.
import type { Value } from '../lang/ast.js'
import { ByteWriter } from './byte-writer.js'
import { CodecError } from './error.js'
import { kindOf, nesting_depth_max, type RecordValue } from './kind.js'
import { row_format_version, row_tag, tooDeep } from './row-format.js'
import { checkWellFormed } from './utf8.js'

/** The row's bytes, copied out of the scratch buffer at their exact size. */
export function writeRow(row: RecordValue): Buffer {
  const w = writer
  try {
    w.at = 0
    w.ensure(1)
    w.buf[w.at++] = row_format_version
    writeFields(w, row, 0)
    const out = Buffer.allocUnsafe(w.at)
    out.set(new Uint8Array(w.buf.buffer, w.buf.byteOffset, w.at)) // TypedArray#set: cheaper than Buffer#copy
    return out
  } finally {
    if (w.buf.length > scratch_bytes_kept) w.buf = Buffer.allocUnsafe(scratch_bytes_initial) // one huge row need not pin its scratch
  }
}

/**
 * The row {names[i]: values[i]} (fields in that order, as writeRow writes a record
 * whose Object.keys are `names`) as a view of the scratch buffer, valid until the next
 * call: for a caller that copies it at once, so a row needs neither a record object
 * nor a buffer of its own.
 */
export function writeRowFields(names: readonly string[], values: readonly Value[]): Buffer {
  const w = writer
  try {
    w.at = 0
    w.ensure(1)
    w.buf[w.at++] = row_format_version
    writeVarint(w, names.length)
    for (let i = 0; i < names.length; i += 1) {
      writeString(w, names[i] as string)
      writeValue(w, values[i] as Value, 0)
    }
    return w.buf.subarray(0, w.at)
  } finally {
    if (w.buf.length > scratch_bytes_kept) w.buf = Buffer.allocUnsafe(scratch_bytes_initial) // the view keeps the old one alive
  }
}

const scratch_bytes_initial = 64 * 1024
const scratch_bytes_kept = 2 * 1024 * 1024

class Writer extends ByteWriter {
  constructor() {
    super(scratch_bytes_initial)
  }
}

// One scratch buffer reused by every call (encoding is synchronous and not re-entrant).
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
