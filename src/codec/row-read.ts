// Reads the row format of row.ts, refusing (CodecError) anything the writer would not write.
import type { Value } from '../lang/ast.js'
import { CodecError } from './error.js'
import { defineField, nesting_depth_max, timestamp_ms_max, type RecordValue } from './kind.js'
import { row_format_version, row_tag, tooDeep } from './row-format.js'
import { asBuffer, decodeName, decodeUtf8 } from './utf8.js'

export function readRow(bytes: Uint8Array): RecordValue {
  return readRowAt(asBuffer(bytes), 0, bytes.length)
}

/**
 * readRow of bytes [from, to) of `buf`: a row inside a batch is read where it lies,
 * without a Buffer view of its own (src/engine/range-batch.ts, LookupBatch).
 */
export function readRowAt(buf: Buffer, from: number, to: number): RecordValue {
  const r: Reader = { buf, at: from, end: to }
  if (from >= to || buf[from] !== row_format_version) throw new CodecError('unknown row format version')
  r.at = from + 1
  const row = readFields(r, 0)
  if (r.at !== r.end) throw new CodecError('row has trailing bytes')
  return row
}

/**
 * readRow, keeping only the fields named in `wanted` (a lookup whose later stages read
 * two fields of the other collection's rows decodes no more: docs/performance.md, P15).
 * The fields left out are stepped over: their structure is checked (tags, lengths,
 * nesting) but their strings are not decoded and their names may repeat, so invalid
 * UTF-8 or a repeated name in a field nobody reads goes unnoticed. Every field read is
 * checked as readRow checks it.
 */
export function readRowFields(bytes: Uint8Array, wanted: ReadonlySet<string>): RecordValue {
  return readRowFieldsAt(asBuffer(bytes), 0, bytes.length, wanted)
}

/** readRowFields of bytes [from, to) of `buf` (as readRowAt). */
export function readRowFieldsAt(buf: Buffer, from: number, to: number, wanted: ReadonlySet<string>): RecordValue {
  const r: Reader = { buf, at: from, end: to }
  if (from >= to || buf[from] !== row_format_version) throw new CodecError('unknown row format version')
  r.at = from + 1
  const names = wantedNames(wanted)
  const count = readCount(r)
  const record: RecordValue = {}
  for (let i = 0; i < count; i += 1) {
    const length = readCount(r)
    // A wanted name is told by its bytes: no name is decoded, and none looked up in a Set.
    const name = wantedAt(names, r.buf, r.at, length)
    r.at += length
    if (name === null) {
      skipValue(r, 0)
      continue
    }
    if (Object.hasOwn(record, name)) throw new CodecError(`row repeats field "${name}"`)
    if (name === '__proto__') defineField(record, name, readValue(r, 0))
    else record[name] = readValue(r, 0)
  }
  if (r.at !== r.end) throw new CodecError('row has trailing bytes')
  return record
}

/**
 * readRowFieldsAt's fields as the values of `columns`, in their order (null where the
 * row has none): the output row of a read that passes rows as they are stored, with no
 * record made in between (src/query/exec/batch-pipeline.ts). Checked as readRowFields.
 */
export function readRowColumnsAt(buf: Buffer, from: number, to: number, columns: readonly string[]): Value[] {
  const r = column_reader
  r.buf = buf
  r.at = from
  r.end = to
  if (from >= to || buf[from] !== row_format_version) throw new CodecError('unknown row format version')
  r.at = from + 1
  const names = columnNames(columns)
  // Undefined until read: a field read twice is a repeat.
  const values = new Array<Value | undefined>(columns.length).fill(undefined)
  const count = readCount(r)
  for (let i = 0; i < count; i += 1) {
    const length = readCount(r)
    const column = columnAt(names, r.buf, r.at, length)
    r.at += length
    if (column < 0) {
      skipValue(r, 0)
      continue
    }
    if (values[column] !== undefined) throw new CodecError(`row repeats field "${columns[column] as string}"`)
    values[column] = readValue(r, 0)
  }
  if (r.at !== r.end) throw new CodecError('row has trailing bytes')
  for (let j = 0; j < values.length; j += 1) values[j] ??= null
  return values as Value[]
}

interface WantedName {
  name: string
  bytes: Buffer
}

/** The UTF-8 bytes of each wanted name, made once per set (a query makes its set once). */
const wanted_names = new WeakMap<ReadonlySet<string>, WantedName[]>()

function wantedNames(wanted: ReadonlySet<string>): WantedName[] {
  let names = wanted_names.get(wanted)
  if (names === undefined) {
    // A name that is not well-formed UTF-16 has no UTF-8 bytes of its own (Buffer.from
    // would write U+FFFD): no stored name can be it.
    names = [...wanted].map((name) => ({ name, bytes: Buffer.from(name, 'utf8') })).filter(({ name, bytes }) => bytes.toString('utf8') === name)
    wanted_names.set(wanted, names)
  }
  return names
}

/**
 * The reader of readRowColumnsAt, one for all its calls (a scan's rows are decoded one
 * after another, and nothing it calls decodes a row): one object less per row.
 */
const column_reader: Reader = { buf: Buffer.alloc(0), at: 0, end: 0 }

/** The UTF-8 bytes of each column's name, made once per array of columns. */
const column_names = new WeakMap<readonly string[], Array<Buffer | null>>()

function columnNames(columns: readonly string[]): Array<Buffer | null> {
  let names = column_names.get(columns)
  if (names === undefined) {
    names = columns.map((name) => { const bytes = Buffer.from(name, 'utf8'); return bytes.toString('utf8') === name ? bytes : null })
    column_names.set(columns, names)
  }
  return names
}

/** The index of the column whose name's bytes are [at, at + length) of `buf`, or -1. */
function columnAt(names: ReadonlyArray<Buffer | null>, buf: Buffer, at: number, length: number): number {
  for (let n = 0; n < names.length; n += 1) {
    const bytes = names[n]
    if (bytes === null || bytes === undefined || bytes.length !== length) continue
    let i = 0
    while (i < length && bytes[i] === buf[at + i]) i += 1
    if (i === length) return n
  }
  return -1
}

/** The wanted name whose bytes are [at, at + length) of `buf`, or null. */
function wantedAt(names: readonly WantedName[], buf: Buffer, at: number, length: number): string | null {
  for (let n = 0; n < names.length; n += 1) {
    const { name, bytes } = names[n] as WantedName
    if (bytes.length !== length) continue
    let i = 0
    while (i < length && bytes[i] === buf[at + i]) i += 1
    if (i === length) return name
  }
  return null
}

/** Steps over one value (see readRowFields): as readValue reads, without building it. */
function skipValue(r: Reader, depth: number): void {
  if (r.at >= r.end) throw truncated()
  const tag = r.buf[r.at++] as number
  switch (tag) {
    case row_tag.null: case row_tag.false: case row_tag.true: return
    case row_tag.uint: case row_tag.negint: case row_tag.timestamp: case row_tag.timestamp_neg:
      readVarint(r)
      return
    case row_tag.float:
      if (r.at + 8 > r.end) throw truncated()
      r.at += 8
      return
    case row_tag.string: {
      // Not `r.at += readCount(r)`: that adds to r.at as it was before the count was read.
      const length = readCount(r)
      r.at += length
      return
    }
    case row_tag.list: {
      if (depth >= nesting_depth_max) throw tooDeep()
      const count = readCount(r)
      for (let i = 0; i < count; i += 1) skipValue(r, depth + 1)
      return
    }
    case row_tag.record: {
      if (depth >= nesting_depth_max) throw tooDeep()
      const count = readCount(r)
      for (let i = 0; i < count; i += 1) {
        const length = readCount(r)
        r.at += length
        skipValue(r, depth + 1)
      }
      return
    }
    default:
      throw new CodecError(`unknown row tag 0x${tag.toString(16).padStart(2, '0')}`)
  }
}

// Reading a float through a typed-array view beats readDoubleLE's JS implementation
// (profiled). The view has the platform's byte order; the format is little-endian.
const float_view = new Float64Array(1)
const float_bytes = new Uint8Array(float_view.buffer)
const native_little_endian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

interface Reader {
  buf: Buffer
  at: number
  /** Where the row ends in `buf` (a row may lie inside a larger batch). */
  end: number
}

function truncated(): CodecError {
  return new CodecError('row is truncated')
}

function readVarint(r: Reader): number {
  const buf = r.buf
  if (r.at >= r.end) throw truncated()
  let b = buf[r.at++] as number
  if (b < 0x80) return b
  let n = b & 0x7f
  let scale = 0x80
  for (let i = 1; i < 8; i += 1) {
    if (r.at >= r.end) throw truncated()
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
  if (n > r.end - r.at) throw truncated()
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
  if (r.at >= r.end) throw truncated()
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
      if (r.at + 8 > r.end) throw truncated()
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
