// SQL's LIKE without a regular expression (docs/language.md, "Patterns"): the pattern
// is split at its `%` into segments of characters and `_`; the first segment must
// match at the start, the last at the end, and each one between at its leftmost place
// after the one before. The leftmost place is always a right choice, because a segment
// has a fixed length and the `%` around it take anything, so nothing is ever tried
// twice: each character of the text is looked at by one segment search, a bit-parallel
// one (shift-and) whose step costs one machine word per 32 pattern characters. So a
// match costs about (text length) × (pattern length / 32) steps, whatever the pattern:
// 400 `%` are as fast as one.
import { QueryError } from '../errors.js'

/** One run of characters between two `%`, as code points; `_` (any one) is -1. */
class Segment {
  readonly units: Int32Array
  /** Per code point of the segment, the positions it may stand at (its own and every `_`), one bit each. */
  readonly #masks = new Map<number, Uint32Array>()
  /** The positions any other code point may stand at: the `_`. */
  readonly #any: Uint32Array
  readonly #words: number

  constructor(units: number[]) {
    this.units = Int32Array.from(units)
    this.#words = Math.max(1, Math.ceil(units.length / 32))
    this.#any = new Uint32Array(this.#words)
    units.forEach((unit, i) => { if (unit === -1) setBit(this.#any, i) })
    for (const unit of units) {
      if (unit === -1 || this.#masks.has(unit)) continue
      const mask = Uint32Array.from(this.#any)
      units.forEach((other, i) => { if (other === unit) setBit(mask, i) })
      this.#masks.set(unit, mask)
    }
  }

  get length(): number {
    return this.units.length
  }

  /** Whether the segment matches `text` at `at` (which leaves room for it). */
  matchesAt(text: Int32Array, at: number): boolean {
    for (let i = 0; i < this.units.length; i += 1) {
      const unit = this.units[i] as number
      if (unit !== -1 && unit !== text[at + i]) return false
    }
    return true
  }

  /** Where the segment first matches wholly within text[from, to), or -1. */
  find(text: Int32Array, from: number, to: number): number {
    const m = this.units.length
    if (m === 0) return from
    const words = this.#words
    const state = new Uint32Array(words)
    const top = words - 1
    const topBit = 1 << ((m - 1) % 32)
    for (let j = from; j < to; j += 1) {
      const mask = this.#masks.get(text[j] as number) ?? this.#any
      // state bit i: the segment's first i + 1 units match the text ending at j.
      let carry = 1
      for (let w = 0; w < words; w += 1) {
        const previous = state[w] as number
        state[w] = ((previous << 1) | carry) & (mask[w] as number)
        carry = previous >>> 31
      }
      if (((state[top] as number) & topBit) !== 0) return j - m + 1
    }
    return -1
  }
}

function setBit(words: Uint32Array, i: number): void {
  words[i >>> 5] = (words[i >>> 5] as number) | (1 << (i & 31))
}

export class LikePattern {
  readonly #head: Segment
  readonly #middle: Segment[]
  /** After the last `%`; null when the pattern has none (the whole text is the head). */
  readonly #tail: Segment | null
  readonly #fixed: number

  constructor(pattern: string) {
    const segments: number[][] = [[]]
    const chars = [...pattern]
    for (let i = 0; i < chars.length; i += 1) {
      const ch = chars[i] as string
      if (ch === '%') segments.push([])
      else if (ch === '_') segments.at(-1)?.push(-1)
      else if (ch === '\\') {
        const next = chars[i + 1]
        if (next === undefined) throw new QueryError('type_error', `like(): pattern ${JSON.stringify(pattern)} ends with an escape character`)
        segments.at(-1)?.push(next.codePointAt(0) as number)
        i += 1
      } else {
        segments.at(-1)?.push(ch.codePointAt(0) as number)
      }
    }
    const built = segments.map((units) => new Segment(units))
    this.#head = built[0] as Segment
    this.#tail = built.length > 1 ? (built.at(-1) as Segment) : null
    // Empty segments between two `%` ask nothing.
    this.#middle = built.slice(1, -1).filter((segment) => segment.length > 0)
    this.#fixed = built.reduce((sum, segment) => sum + segment.length, 0)
  }

  /** Whether the whole of `text` matches. */
  matches(text: string): boolean {
    const units = codePoints(text)
    const n = units.length
    if (this.#tail === null) return n === this.#head.length && this.#head.matchesAt(units, 0)
    if (n < this.#fixed || !this.#head.matchesAt(units, 0)) return false
    const tailAt = n - this.#tail.length
    let at = this.#head.length
    for (const segment of this.#middle) {
      const found = segment.find(units, at, tailAt)
      if (found < 0) return false
      at = found + segment.length
    }
    return at <= tailAt && this.#tail.matchesAt(units, tailAt)
  }

  /** Machine words per searched character: the search's cost per step. */
  get wordsPerStep(): number {
    return Math.max(1, ...this.#middle.map((segment) => Math.ceil(segment.length / 32)))
  }
}

/** The code points of `text` (a lone surrogate counts as one, as `[...text]` has it). */
function codePoints(text: string): Int32Array {
  const out = new Int32Array(text.length)
  let n = 0
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.codePointAt(i) as number
    out[n++] = unit
    if (unit > 0xffff) i += 1
  }
  return out.subarray(0, n)
}
