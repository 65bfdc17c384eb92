// The size of a value as JSON text in UTF-8, without writing it: what an answer's rows
// weigh (result-bytes.ts, docs/api.md "Size of an answer"). `jsonBytes` is exact, as
// JSON.stringify writes it, and scans every string; `jsonBytesBound` is an upper bound
// that looks at no character (six bytes a UTF-16 unit, the most an escape takes), so
// the many answers far below the bound are counted at a fraction of the cost. Both
// walks stop once they pass `room`, so measuring a huge value costs no more than the
// bound: a row whose lookup found the same 10 000 rows as every other row is counted
// until the answer is too large, not to its end.
import type { Value } from '../../lang/ast.js'

/** JSON.stringify(value)'s length in UTF-8 bytes when at most `room`; otherwise some number above `room`. */
export function jsonBytes(value: Value, room = Infinity): number {
  switch (typeof value) {
    case 'string': return stringBytes(value)
    case 'number': return Number.isFinite(value) ? numberBytes(value) : 4
    case 'boolean': return value ? 4 : 5
    default: break
  }
  if (value === null) return 4
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 4 : value.toISOString().length + 2
  if (Array.isArray(value)) {
    let bytes = value.length === 0 ? 2 : value.length + 1 // brackets and commas
    for (let i = 0; i < value.length && bytes <= room; i += 1) bytes += jsonBytes(value[i] as Value, room - bytes)
    return bytes
  }
  let bytes = 2
  let fields = 0
  for (const key in value) {
    const field = value[key]
    if (field === undefined) continue // JSON.stringify leaves it out
    fields += 1
    bytes += stringBytes(key) + 1 + jsonBytes(field, room - bytes)
    if (bytes > room) return bytes
  }
  return bytes + Math.max(fields - 1, 0)
}

function numberBytes(n: number): number {
  // Small integers, the common case, without making their text.
  if (Number.isInteger(n) && n > -1e15 && n < 1e15) {
    let digits = n < 0 ? 2 : 1
    for (let a = Math.abs(n); a >= 10; a = Math.floor(a / 10)) digits += 1
    return digits
  }
  return String(n).length
}

/** A string's JSON text: its quotes, escapes (\" \\ \n, \u00XX for other controls and lone surrogates) and UTF-8. */
function stringBytes(s: string): number {
  let bytes = s.length + 2
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue
    if (c < 0x80) bytes += c === 0x22 || c === 0x5c || c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : c < 0x20 ? 5 : 0
    else if (c < 0x800) bytes += 1
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2 // a pair: two units, four bytes
      i += 1
    } else if (c >= 0xd800 && c <= 0xdfff) bytes += 5 // a lone surrogate is written \uDXXX
    else bytes += 2
  }
  return bytes
}

/** At least JSON.stringify(value)'s length in UTF-8 bytes, cheaply; once above `room`, some number above `room`. */
export function jsonBytesBound(value: Value, room = Infinity): number {
  switch (typeof value) {
    case 'string': return 6 * value.length + 2
    // "-1.7976931348623157e+308" is the longest a number is written.
    case 'number': return 24
    case 'boolean': return 5
    default: break
  }
  if (value === null) return 4
  // "+275760-09-13T00:00:00.000Z", the latest date, and its quotes.
  if (value instanceof Date) return 29
  if (Array.isArray(value)) {
    let bytes = value.length + 2
    for (let i = 0; i < value.length && bytes <= room; i += 1) bytes += jsonBytesBound(value[i] as Value, room - bytes)
    return bytes
  }
  let bytes = 2
  for (const key in value) {
    const field = value[key]
    if (field === undefined) continue
    bytes += 6 * key.length + 4 + jsonBytesBound(field, room - bytes) // its quotes, colon and comma
    if (bytes > room) return bytes
  }
  return bytes
}
