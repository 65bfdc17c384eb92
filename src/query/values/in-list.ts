// `x in [..]` against a list that does not depend on the row (literals, a parameter):
// its members are put in hash sets once per statement, so each row's test is one
// lookup, not a walk of the list (a 10 000-value list over 10 000 rows took 10^8
// comparisons, seconds of a stalled event loop). Equality is `==`'s (docs/language.md,
// "Expressions"): numbers by value, a timestamp equal to an ISO-8601 string naming its
// instant; lists and records compare deeply (kept in a list: rare in an `in`).
import type { Value } from '../../lang/ast.js'
import { compareValues, kindOf } from '../../codec/index.js'
import { parseTimestamp } from './timestamp-text.js'

/**
 * Comparisons `in` made in this process: one per item walked, one per hash lookup. The
 * way a test sees that a long list costs each row a lookup, not a walk
 * (test/query-in-list.test.ts).
 */
export const in_comparisons = { count: 0 }

/** Lists up to this long are walked: a handful of comparisons costs less than building sets. */
export const in_list_walk_max = 8

export class InListMembers {
  readonly #bools = new Set<boolean>()
  readonly #numbers = new Set<number>()
  readonly #strings = new Set<string>()
  /** Timestamps, by epoch ms. */
  readonly #times = new Set<number>()
  /** Strings that name a timestamp, by its epoch ms: they equal that timestamp. */
  readonly #timeStrings = new Set<number>()
  readonly #others: Value[] = []

  constructor(list: readonly Value[]) {
    for (const item of list) {
      // kindOf refuses NaN and invalid dates, as the comparison of a walk would.
      switch (kindOf(item)) {
        case 'null': break // x in [..] is false for a null x; nothing else equals null
        case 'bool': this.#bools.add(item as boolean); break
        case 'number': this.#numbers.add(item as number); break
        case 'string': {
          this.#strings.add(item as string)
          const time = parseTimestamp(item as string)
          if (time !== null) this.#timeStrings.add(time.getTime())
          break
        }
        case 'timestamp': this.#times.add((item as Date).getTime()); break
        default: this.#others.push(item)
      }
    }
  }

  /** Whether `value` (not null) equals an item. */
  has(value: Value): boolean {
    in_comparisons.count += 1
    switch (typeof value) {
      case 'boolean': return this.#bools.has(value)
      // Set's SameValueZero equates -0 and 0, as compareValues does.
      case 'number': return this.#numbers.has(value)
      case 'string': {
        if (this.#strings.has(value)) return true
        if (this.#times.size === 0) return false
        const time = parseTimestamp(value)
        return time !== null && this.#times.has(time.getTime())
      }
      default:
        if (value instanceof Date) return this.#times.has(value.getTime()) || this.#timeStrings.has(value.getTime())
        return this.#others.some((item) => {
          in_comparisons.count += 1
          return compareValues(value, item) === 0
        })
    }
  }
}
