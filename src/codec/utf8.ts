// UTF-8 helpers shared by the key and row codecs. Both codecs refuse strings that are
// not well-formed UTF-16 (a lone surrogate): Buffer.from would silently turn one into
// U+FFFD, so the value read back would differ from the value written, and the key
// order of the replaced string would not match compareValues.
import { CodecError } from './error.js'

// Node 20 has String.prototype.isWellFormed (V8 11.x); TS's ES2022 lib does not know it.
type WellFormed = { isWellFormed(): boolean }

export function checkWellFormed(text: string, what: string): void {
  if (!(text as unknown as WellFormed).isWellFormed()) {
    throw new CodecError(`${what} contains a lone surrogate (not valid Unicode)`)
  }
}

// fatal: invalid UTF-8 throws instead of becoming U+FFFD (decoders must never return
// garbage); ignoreBOM: a leading U+FEFF is content, not a byte-order mark to drop.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Decodes bytes [from, to) of `buf` as UTF-8; throws CodecError if they are not valid UTF-8. */
export function decodeUtf8(buf: Buffer, from: number, to: number): string {
  // Measured (node 20): for up to 16 ASCII bytes (field names, codes, short words and
  // names) one String.fromCharCode call with the bytes as arguments takes 25-30 ns,
  // against about 65 ns for Buffer's decoder or a loop adding a character at a time;
  // beyond that Buffer's decoder wins (docs/performance.md, P15).
  const n = to - from
  if (n <= short_ascii_bytes_max) {
    let ascii = 0
    for (let i = from; i < to; i += 1) ascii |= buf[i] as number
    if (ascii < 0x80) return shortAscii(buf, from, n)
  }
  return decodeChecked(buf, from, to)
}

const short_ascii_bytes_max = 16
const char = String.fromCharCode

/** `n` (at most short_ascii_bytes_max) ASCII bytes from `at` as a string, in one call. */
function shortAscii(b: Buffer, at: number, n: number): string {
  switch (n) {
    case 0: return ''
    case 1: return char(b[at] as number)
    case 2: return char(b[at] as number, b[at + 1] as number)
    case 3: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number)
    case 4: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number)
    case 5: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number)
    case 6: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number)
    case 7: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number)
    case 8: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number)
    case 9: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number)
    case 10: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number, b[at + 9] as number)
    case 11: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number, b[at + 9] as number, b[at + 10] as number)
    case 12: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number, b[at + 9] as number, b[at + 10] as number, b[at + 11] as number)
    case 13: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number, b[at + 9] as number, b[at + 10] as number, b[at + 11] as number, b[at + 12] as number)
    case 14: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number, b[at + 9] as number, b[at + 10] as number, b[at + 11] as number, b[at + 12] as number, b[at + 13] as number)
    case 15: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number, b[at + 9] as number, b[at + 10] as number, b[at + 11] as number, b[at + 12] as number, b[at + 13] as number, b[at + 14] as number)
    default: return char(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number, b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number, b[at + 8] as number, b[at + 9] as number, b[at + 10] as number, b[at + 11] as number, b[at + 12] as number, b[at + 13] as number, b[at + 14] as number, b[at + 15] as number)
  }
}

// Buffer's own slice methods, which toString() calls after checking its arguments: that
// check cost about as much as the decoding itself on short strings (profiled). Every Node
// release has them; callers here have already bounds-checked `from` and `to`.
interface FastSlices {
  utf8Slice(from: number, to: number): string
  latin1Slice(from: number, to: number): string
}

// Buffer's decoder turns invalid UTF-8 into U+FFFD; only when one appears (rare: it is
// also a legitimate character) does the strict decoder decide.
function decodeChecked(buf: Buffer, from: number, to: number): string {
  const text = (buf as unknown as FastSlices).utf8Slice(from, to)
  if (!text.includes('\ufffd')) return text
  try {
    return strict.decode(buf.subarray(from, to))
  } catch {
    throw new CodecError('string is not valid UTF-8')
  }
}

/** The same bytes as a Buffer (no copy), for Buffer's decoding methods. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

// Field names repeat in every row, so decoding them again and again is wasted work: a
// small direct-mapped cache returns the string decoded last time for the same bytes
// (measured: ~18 ns against ~40 ns for building a 7-letter name). It only holds short
// ASCII names, is checked byte by byte on every hit, and a collision just replaces the slot.
const name_cache_slots = 4096
const name_cache_length_max = 32
const name_cache: Array<string | undefined> = new Array<string | undefined>(name_cache_slots)

/** decodeUtf8 for field names, through the cache. */
export function decodeName(buf: Buffer, from: number, to: number): string {
  const length = to - from
  if (length > name_cache_length_max) return decodeUtf8(buf, from, to)
  let hash = length
  for (let i = from; i < to; i += 1) {
    const byte = buf[i] as number
    if (byte >= 0x80) return decodeUtf8(buf, from, to)
    hash = Math.imul(hash ^ byte, 0x01000193) // FNV-1a step
  }
  const slot = (hash ^ (hash >>> 15)) & (name_cache_slots - 1)
  const cached = name_cache[slot]
  if (cached !== undefined && cached.length === length) {
    let i = 0
    while (i < length && cached.charCodeAt(i) === buf[from + i]) i += 1
    if (i === length) return cached
  }
  const name = (buf as unknown as FastSlices).latin1Slice(from, to) // checked above: all ASCII
  name_cache[slot] = name
  return name
}
