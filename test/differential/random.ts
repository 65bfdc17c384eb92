// A small seeded PRNG (mulberry32) with the helpers the generator needs. Every
// random choice of the differential test goes through one of these, so a seed
// reproduces a run exactly.
import { rng } from '../helpers/rng.js'

export class Rng {
  readonly #next: () => number

  constructor(seed: number) {
    this.#next = rng(seed)
  }

  /** A float in [0, 1). */
  next(): number {
    return this.#next()
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** One of the choices, with probability proportional to its weight. */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    const total = choices.reduce((sum, [, w]) => sum + w, 0)
    let at = this.next() * total
    for (const [value, weight] of choices) {
      at -= weight
      if (at < 0) return value
    }
    return (choices.at(-1) as readonly [T, number])[0]
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items]
    for (let i = out.length - 1; i > 0; i -= 1) {
      const j = Math.floor(this.next() * (i + 1))
      const tmp = out[i] as T
      out[i] = out[j] as T
      out[j] = tmp
    }
    return out
  }

  /** `count` distinct items (fewer if there are not enough). */
  sample<T>(items: readonly T[], count: number): T[] {
    return this.shuffle(items).slice(0, count)
  }
}

/** A well-mixed 32-bit seed for sub-run `index` of a run seeded with `seed`. */
export function deriveSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}
