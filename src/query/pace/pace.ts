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
  return new QueryError('query_timeout', 'the query ran past its time limit', { limit: 'statement_time_ms' })
}

/** How a statement's pace waits for its next turn and what else it checks then. */
export interface PaceOptions {
  /** Waits for the statement's next turn (its tenant's, src/isolation/fair-scheduler.ts); default one turn of the loop. */
  turn?: () => Promise<void>
  /** The statement's rows examined so far, and the most it may examine (`statement_limit`). */
  examined?: { rows: number }
  rows_examined_max?: number
}

export class Pace {
  readonly deadline_ms: number
  /** When the statement should next yield: statement_yield_ms after the last yield, or its deadline if sooner. */
  #due_ms: number
  readonly #turn: () => Promise<unknown>
  readonly #examined: { rows: number }
  readonly #rows_max: number

  constructor(deadline_ms: number, now = Date.now(), options: PaceOptions = {}) {
    this.deadline_ms = deadline_ms
    this.#due_ms = Math.min(now + statement_yield_ms, deadline_ms + 1)
    this.#turn = options.turn ?? yieldToLoop
    this.#examined = options.examined ?? { rows: 0 }
    this.#rows_max = options.rows_examined_max ?? Infinity
  }

  /** Whether the statement should yield now: one unit of work done, the clock read only now and then. */
  due(): boolean {
    meter.units += 1
    if (meter.units < statement_work_units_per_clock_read) return false
    meter.units = 0
    return Date.now() >= this.#due_ms
  }

  /** Lets the other requests run, then throws past the deadline or the rows it may examine. */
  async yield(): Promise<void> {
    this.#checkRows()
    await this.#turn()
    const now = Date.now()
    if (now > this.deadline_ms) throw timedOut()
    this.#due_ms = Math.min(now + statement_yield_ms, this.deadline_ms + 1)
  }

  /** Throws past the deadline or the rows it may examine: between the synchronous steps (parse, check, plan). */
  check(): void {
    if (Date.now() > this.deadline_ms) throw timedOut()
    this.#checkRows()
  }

  #checkRows(): void {
    if (this.#examined.rows > this.#rows_max) {
      throw new QueryError('statement_limit', `the statement examined more than ${this.#rows_max} rows, its limit statement_rows_examined: narrow it with an index or a where`, { limit: 'statement_rows_examined' })
    }
  }
}
