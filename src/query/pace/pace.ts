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

/**
 * The refusal of a statement past its deadline: `statement_limit` when its tenant's
 * statement_time_ms set the deadline (`tenant_ms`), else the server's `query_timeout`.
 */
export function timedOut(tenant_ms?: number): QueryError {
  if (tenant_ms !== undefined) return new QueryError('statement_limit', `the statement ran past ${tenant_ms} ms, its limit statement_time_ms`, { limit: 'statement_time_ms' })
  return new QueryError('query_timeout', 'the query ran past its time limit')
}

/** A statement's deadline, and its tenant's statement_time_ms when that limit is what sets it. */
export interface Deadline {
  deadline_ms: number
  time_limit_ms?: number
}

/** The deadline of a statement started at `started`: the server's time limit or its tenant's, whichever is sooner. */
export function deadline(started: number, server_ms: number, tenant_ms: number | undefined): Deadline {
  if (tenant_ms !== undefined && tenant_ms < server_ms) return { deadline_ms: started + tenant_ms, time_limit_ms: tenant_ms }
  return { deadline_ms: started + server_ms }
}

/** How a statement's pace waits for its next turn and what else it checks then. */
export interface PaceOptions {
  /** Waits for the statement's next turn (its tenant's, src/isolation/fair-scheduler.ts); default one turn of the loop. */
  turn?: () => Promise<void>
  /** The statement's rows examined so far, and the most it may examine (`statement_limit`). */
  examined?: { rows: number }
  rows_examined_max?: number
  /** The tenant's statement_time_ms, when it set the deadline (`statement_limit`, not `query_timeout`). */
  time_limit_ms?: number
}

export class Pace {
  readonly deadline_ms: number
  /** When the statement should next yield: statement_yield_ms after the last yield, or its deadline if sooner. */
  #due_ms: number
  readonly #turn: () => Promise<unknown>
  readonly #examined: { rows: number }
  readonly #rows_max: number
  readonly #time_limit_ms: number | undefined

  constructor(deadline_ms: number, now = Date.now(), options: PaceOptions = {}) {
    this.deadline_ms = deadline_ms
    this.#due_ms = Math.min(now + statement_yield_ms, deadline_ms + 1)
    this.#turn = options.turn ?? yieldToLoop
    this.#examined = options.examined ?? { rows: 0 }
    this.#rows_max = options.rows_examined_max ?? Infinity
    this.#time_limit_ms = options.time_limit_ms
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
    if (now > this.deadline_ms) throw timedOut(this.#time_limit_ms)
    this.#due_ms = Math.min(now + statement_yield_ms, this.deadline_ms + 1)
  }

  /** Throws past the deadline or the rows it may examine: between the synchronous steps (parse, check, plan). */
  check(): void {
    if (Date.now() > this.deadline_ms) throw timedOut(this.#time_limit_ms)
    this.#checkRows()
  }

  #checkRows(): void {
    if (this.#examined.rows > this.#rows_max) {
      throw new QueryError('statement_limit', `the statement examined more than ${this.#rows_max} rows, its limit statement_rows_examined: narrow it with an index or a where`, { limit: 'statement_rows_examined' })
    }
  }
}
