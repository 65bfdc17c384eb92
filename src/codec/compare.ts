// The total order of Eel values, for in-memory sorting. It must agree exactly with the
// byte order of encodeKey (src/codec/key.ts): an index scan and a sort stage return
// rows in the same order. test/codec-key.test.ts checks the two agree on random values.
import type { Value } from '../lang/ast.js'
import { CodecError } from './error.js'
import { kindOf, kind_rank, nesting_depth_max, type RecordValue } from './kind.js'

/**
 * -1, 0 or 1 as `a` sorts before, equal to, or after `b`:
 * - kinds: null < bool < number < string < timestamp < list < record;
 * - false < true; numbers by value (-0 equals 0; ±Infinity at the ends);
 * - strings by Unicode code point (= UTF-8 byte order), case-sensitive;
 * - timestamps by instant; lists element by element, a proper prefix first;
 * - records as their (name, value) pairs sorted by name, compared like lists of pairs,
 *   so field order does not matter: {a: 1, b: 2} equals {b: 2, a: 1}.
 * Throws CodecError for NaN, invalid Dates and non-values, which have no place in the order.
 */
export function compareValues(a: Value, b: Value): -1 | 0 | 1 {
  return compareAt(a, b, 0)
}

function compareAt(a: Value, b: Value, depth: number): -1 | 0 | 1 {
  const ka = kindOf(a)
  const kb = kindOf(b)
  if (ka !== kb) return kind_rank[ka] < kind_rank[kb] ? -1 : 1
  switch (ka) {
    case 'null': return 0
    case 'bool': return a === b ? 0 : a === false ? -1 : 1
    case 'number': return sign((a as number) - (b as number))
    case 'string': return compareStrings(a as string, b as string)
    case 'timestamp': return sign((a as Date).getTime() - (b as Date).getTime())
    case 'list': return compareLists(a as Value[], b as Value[], deeper(depth))
    case 'record': return compareRecords(a as RecordValue, b as RecordValue, deeper(depth))
  }
}

// ±Infinity - ±Infinity of the same sign is NaN, but those compare equal.
function sign(difference: number): -1 | 0 | 1 {
  return difference < 0 ? -1 : difference > 0 ? 1 : 0
}

function deeper(depth: number): number {
  if (depth >= nesting_depth_max) throw new CodecError(`value nests deeper than ${nesting_depth_max} levels`)
  return depth + 1
}

function compareLists(a: Value[], b: Value[], depth: number): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i += 1) {
    const c = compareAt(a[i] as Value, b[i] as Value, depth)
    if (c !== 0) return c
  }
  return sign(a.length - b.length)
}

function compareRecords(a: RecordValue, b: RecordValue, depth: number): -1 | 0 | 1 {
  const na = sortedNames(a)
  const nb = sortedNames(b)
  const n = Math.min(na.length, nb.length)
  for (let i = 0; i < n; i += 1) {
    const x = na[i] as string
    const y = nb[i] as string
    const byName = compareStrings(x, y)
    if (byName !== 0) return byName
    const byValue = compareAt(a[x] as Value, b[y] as Value, depth)
    if (byValue !== 0) return byValue
  }
  return sign(na.length - nb.length)
}

/** A record's field names in code-point order (the order key.ts writes them in). */
export function sortedNames(record: RecordValue): string[] {
  return Object.keys(record).sort(compareStrings)
}

/**
 * Code-point order of two strings. JS's `<` compares UTF-16 code units, which differs
 * from code-point order where a surrogate (half of a character from U+10000 up) meets a
 * unit in U+E000–U+FFFF; at the first differing unit, lift surrogates above that range.
 */
export function compareStrings(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i += 1) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000
      }
      return x < y ? -1 : 1
    }
  }
  return a.length < b.length ? -1 : 1
}
