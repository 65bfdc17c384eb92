// Byte ranges for index and primary-key scans, built from encodeKey. Every range is
// [start, end): start inclusive, end exclusive, end null for "to the end of the tree".
// Because no encoding is a proper prefix of another, "component == v" is exactly
// "key starts with encode(v)", which turns each bound into a prefix or its prefixEnd.
import type { Value } from '../lang/ast.js'
import { kindOf, type Kind } from './kind.js'
import { encodeKey, kind_tags, prefixEnd } from './key.js'

export interface KeyRange {
  start: Buffer
  end: Buffer | null
}

export interface Bound {
  value: Value
  inclusive: boolean
}

/** Every key whose leading components equal `prefix` (all keys when it is empty). */
export function prefixRange(prefix: readonly Value[]): KeyRange {
  const start = encodeKey(prefix)
  return { start, end: prefixEnd(start) }
}

/** Every key whose leading components equal `prefix` and whose next component is of `kind`. */
export function kindRange(prefix: readonly Value[], kind: Kind): KeyRange {
  const head = encodeKey(prefix)
  const [first, after] = kind_tags[kind]
  return { start: withByte(head, first), end: withByte(head, after) }
}

/**
 * Every key whose leading components equal `prefix` and whose next component lies
 * between `lower` and `upper`. With one bound only, the open side stops at the edge of
 * that bound's kind, as Eel's `<`, `<=`, `>`, `>=` are false across kinds and for null
 * (`age < 30` must not return the rows whose age is null). With neither, it is
 * prefixRange. An empty interval gives start == end.
 */
export function componentRange(prefix: readonly Value[], lower: Bound | null, upper: Bound | null): KeyRange {
  if (lower === null && upper === null) return prefixRange(prefix)
  const kind = kindRange(prefix, kindOf((lower ?? upper)!.value))
  const start = lower === null
    ? kind.start
    : lower.inclusive ? encodeKey([...prefix, lower.value]) : endOf([...prefix, lower.value])
  const end = upper === null
    ? kind.end
    : upper.inclusive ? endOf([...prefix, upper.value]) : encodeKey([...prefix, upper.value])
  return end !== null && Buffer.compare(start, end) >= 0 ? { start, end: start } : { start, end }
}

// A non-empty key never ends the scan at "no end": its first byte is a tag below 0xFF.
function endOf(values: Value[]): Buffer {
  return prefixEnd(encodeKey(values)) as Buffer
}

function withByte(head: Buffer, byte: number): Buffer {
  const out = Buffer.allocUnsafe(head.length + 1)
  head.copy(out)
  out[head.length] = byte
  return out
}
