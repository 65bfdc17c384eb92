// Row codec: a row (a record of Eel values) as the bytes stored as a B-tree value.
//
// Decision, by measurement (bench/row-codec.ts, `npm run bench:codec`): this compact
// binary format, over JSON with a tagging scheme for Dates and non-JSON numbers (the
// loser, kept only in the bench). Binary wins every shape on size, encode and decode.
// Node 20.20, 2 cores (shared with other work; candidates interleaved per repetition,
// ratio = binary/JSON per repetition, median of 5; range over 3 runs in brackets):
//
// | shape (rows)                         | bytes JSON | bytes binary | encode/s JSON → binary  | decode/s JSON → binary  |
// |--------------------------------------|-----------:|-------------:|-------------------------|-------------------------|
// | users {id,email,name,age?,status,tags,created} | 157 | 115 (1.37× smaller) | 607k → 1.28M, 2.15× [1.90–2.29] | 671k → 1.22M, 1.82× [1.68–1.82] |
// | kv {k: 24 chars, v: 150 chars}       | 189        | 185 (1.02×)  | 1.22M → 1.93M, 1.59× [1.59–1.77] | 2.24M → 3.34M, 1.55× [1.51–1.61] |
// | json field (nested records, floats)  | 567        | 357 (1.59×)  | 172k → 455k, 2.64× [2.44–2.75] | 164k → 418k, 2.61× [2.43–2.98] |
// | large (~200 KB, 2000 records)        | 204 268    | 181 749 (1.12×) | 794 → 1.3k, 1.60× [1.60–1.70] | 738 → 1.1k, 1.49× [1.48–1.51] |
//
// The binary decoder also validates UTF-8 (JSON's Buffer#toString does not). What made
// decoding fast (profiled): a cache for field names (utf8.ts), Buffer's own slice
// methods instead of toString(), no TextDecoder on the common path. Not done yet: field
// names as indexes into the schema would take the users row from 115 to 84 bytes, but
// ties every row to a schema version that lazy migration would then have to keep.
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
// | `0x05` | float                   | 8 bytes IEEE-754 float64, little-endian (never NaN, nor a safe integer other than -0) |
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
import { kindOf } from './kind.js'
import { readRow, readRowAt, readRowColumnsAt, readRowFields, readRowFieldsAt } from './row-read.js'
import { writeRow, writeRowFields } from './row-write.js'

export { writeRowFields as encodeRowFieldsScratch }

/** Encodes a row; throws CodecError for a value Eel cannot store (NaN, undefined, a Map, a cycle, …). */
export function encodeRow(row: Record<string, Value>): Buffer {
  if (kindOf(row) !== 'record') throw new CodecError('a row must be a record')
  return writeRow(row)
}

/** decodeRow keeping only the fields named in `wanted`; the others are stepped over, unchecked inside (row-read.ts). */
export function decodeRowFields(bytes: Uint8Array, wanted: ReadonlySet<string>): Record<string, Value> {
  return readRowFields(bytes, wanted)
}

/** Decodes bytes written by encodeRow; throws CodecError for anything else. */
export function decodeRow(bytes: Uint8Array): Record<string, Value> {
  return readRow(bytes)
}

/** decodeRow of bytes [from, to) of `buf`, read where they lie (a row inside a batch). */
export function decodeRowAt(buf: Buffer, from: number, to: number): Record<string, Value> {
  return readRowAt(buf, from, to)
}

/** decodeRowFields of bytes [from, to) of `buf`. */
export function decodeRowFieldsAt(buf: Buffer, from: number, to: number, wanted: ReadonlySet<string>): Record<string, Value> {
  return readRowFieldsAt(buf, from, to, wanted)
}

/** The values of `columns` of the row in bytes [from, to) of `buf`, in their order (null where absent): fields not named are stepped over, as decodeRowFields does. */
export function decodeRowColumnsAt(buf: Buffer, from: number, to: number, columns: readonly string[]): Value[] {
  return readRowColumnsAt(buf, from, to, columns)
}
