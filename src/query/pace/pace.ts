// A statement shares the event loop with every other request (docs/architecture.md,
// "Invariants", 8): the loops that read, filter, sort and group rows ask `due()` as
// they go and, when it says so, `yield()`, which lets the others run and checks the
// statement's deadline. So no statement holds the loop much longer than
// statement_yield_ms at a time, and a timed-out one stops near its deadline, not when
// its work is done.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { statement_work_units_per_clock_read, statement_yield_ms } from '../../limits.js'
import { QueryError } from '../errors.js'

/**
 * Work since the clock was last read, in units of about one row's evaluation; a costly
 * step (a pattern match over a long text) charges more. One meter for the process:
 * only one statement runs between two awaits, and its work delays all the others.
 */
const meter = { units: 0 }

/** Counts `units` of work done by a costly step, so the next `due()` reads the clock sooner. */
export function charge(units: number): void {
  meter.units += units
}

export function timedOut(): QueryError {
  return new QueryError('query_timeout', 'the query ran past its time limit')
}

export class Pace {
  readonly deadline_ms: number
  /** When the statement should next yield: statement_yield_ms after the last yield, or its deadline if sooner. */
  #due_ms: number

  constructor(deadline_ms: number, now = Date.now()) {
    this.deadline_ms = deadline_ms
    this.#due_ms = Math.min(now + statement_yield_ms, deadline_ms + 1)
  }

  /** Whether the statement should yield now: one unit of work done, the clock read only now and then. */
  due(): boolean {
    meter.units += 1
    if (meter.units < statement_work_units_per_clock_read) return false
    meter.units = 0
    return Date.now() >= this.#due_ms
  }

  /** Lets the other requests run, then throws `query_timeout` past the deadline. */
  async yield(): Promise<void> {
    await yieldToLoop()
    const now = Date.now()
    if (now > this.deadline_ms) throw timedOut()
    this.#due_ms = Math.min(now + statement_yield_ms, this.deadline_ms + 1)
  }

  /** Throws `query_timeout` past the deadline: between the synchronous steps (parse, check, plan). */
  check(): void {
    if (Date.now() > this.deadline_ms) throw timedOut()
  }
}
