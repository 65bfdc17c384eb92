// Sorting many rows (a sort stage, an aggregate's groups) without holding the event loop
// for the whole sort (pace.ts; docs/architecture.md, "Invariants", 8): runs of
// sort_run_items are sorted by the engine's sort, then merged pairwise, yielding
// whenever the statement's pace says so. Stable, as Array.prototype.sort is, and n log n.
import type { Pace } from './pace.js'
import { charge } from './pace.js'

/** Items one synchronous sort takes at most: about a millisecond of comparisons (4096 took 2–5 ms, P18). */
const sort_run_items = 1024

export async function pacedSort<T>(items: T[], order: (a: T, b: T) => number, pace: Pace): Promise<T[]> {
  if (items.length <= sort_run_items) return items.sort(order)
  let from: T[] = items
  for (let start = 0; start < from.length; start += sort_run_items) {
    const run = from.slice(start, start + sort_run_items).sort(order)
    for (let i = 0; i < run.length; i += 1) from[start + i] = run[i] as T
    // A run's sort is about a dozen comparisons per item.
    charge(run.length * 4)
    if (pace.due()) await pace.yield()
  }
  let to: T[] = new Array<T>(from.length)
  for (let width = sort_run_items; width < from.length; width *= 2) {
    for (let left = 0; left < from.length; left += 2 * width) {
      const mid = Math.min(left + width, from.length)
      const end = Math.min(left + 2 * width, from.length)
      let i = left
      let j = mid
      for (let k = left; k < end; k += 1) {
        // Ties take the left run's item first: stable.
        if (i < mid && (j >= end || order(from[j] as T, from[i] as T) >= 0)) to[k] = from[i++] as T
        else to[k] = from[j++] as T
        if (pace.due()) await pace.yield()
      }
    }
    ;[from, to] = [to, from]
  }
  return from
}
