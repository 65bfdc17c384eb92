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
import { kindOf } from './kind.js'
import { readRow } from './row-read.js'
import { writeRow } from './row-write.js'

/** Encodes a row; throws CodecError for a value Eel cannot store (NaN, undefined, a Map, a cycle, …). */
export function encodeRow(row: Record<string, Value>): Buffer {
  if (kindOf(row) !== 'record') throw new CodecError('a row must be a record')
  return writeRow(row)
}

/** Decodes bytes written by encodeRow; throws CodecError for anything else. */
export function decodeRow(bytes: Uint8Array): Record<string, Value> {
  return readRow(bytes)
}
