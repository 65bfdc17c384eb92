// Turns on the event loop for statements that wait for one (docs/operations.md,
// "Isolation"; docs/architecture.md, "Invariants", 8). A long statement yields every
// statement_yield_ms (src/query/pace/); a statement that begins while others wait for
// a turn waits too. Waiting statements get turns round-robin by tenant, so a tenant
// with many statements in flight gets no more turns than one with a single statement,
// and a tenant still within its reserved budgets goes before those beyond theirs.
// Turns run from a check callback for statement_yield_ms at most, then the rest in the
// next turn of the event loop (setImmediate queued from a check callback runs in the
// next loop turn), so the I/O of every other request, a point read of another tenant
// above all, is read within about statement_yield_ms, not behind every statement
// that yielded.
//
// Short statements never yield, but many of them arriving in one turn of the loop (a
// write flood of 64 in flight) would run back to back before any other request is
// read. So the scheduler also marks the start of each loop turn (a setImmediate runs
// at its end, and the next turn starts there): a statement that starts when the
// current turn has already run statement_yield_ms waits for a turn of its own.
import { statement_yield_ms } from '../limits.js'

export type Priority = 'reserved' | 'normal'

type Waiter = () => void

/**
 * Tenants waiting for turns, round-robin: the tenant served next is the first, and a
 * tenant with more waiting goes to the back. (Putting a tenant with nobody waiting
 * first, as FQ-CoDel's new flows, starved the others: a tenant whose statements queue
 * one at a time came back "new" after every turn, ahead of a tenant with a backlog.)
 */
class Ring {
  /** Waiters in all. */
  size = 0
  readonly #queues = new Map<string, Waiter[]>()

  push(tenant: string, waiter: Waiter): void {
    this.size += 1
    const queue = this.#queues.get(tenant)
    if (queue === undefined) this.#queues.set(tenant, [waiter])
    else queue.push(waiter)
  }

  /** The next tenant's first waiter; that tenant, if more of it wait, goes to the back. */
  shift(): { tenant: string; waiter: Waiter } | undefined {
    for (const [tenant, queue] of this.#queues) {
      this.#queues.delete(tenant)
      const waiter = queue.shift()
      if (queue.length > 0) this.#queues.set(tenant, queue)
      if (waiter !== undefined) {
        this.size -= 1
        return { tenant, waiter }
      }
    }
    return undefined
  }

  /** `tenant`'s next waiter, if any, the tenant keeping its place. */
  take(tenant: string): Waiter | undefined {
    const queue = this.#queues.get(tenant)
    if (queue === undefined) return undefined
    const waiter = queue.shift()
    if (queue.length === 0) this.#queues.delete(tenant)
    if (waiter !== undefined) this.size -= 1
    return waiter
  }
}

export class FairScheduler {
  readonly #reserved = new Ring()
  readonly #normal = new Ring()
  #waiting = 0
  #pumping = false
  /** The tenant whose waiters get turns now, and since when. */
  #current: { tenant: string; ring: Ring; since: number } | null = null
  /** When the current turn of the event loop began (as near as a check callback tells), and whether the next mark is queued. */
  #turn_began = performance.now()
  #marking = false
  /** Turns given since the process began (a test and the figures read it). */
  turns = 0

  /** Statements waiting for a turn now. */
  get waiting(): number {
    return this.#waiting
  }

  /**
   * Whether a statement starting now should wait for a turn: others wait for one, or
   * this turn of the event loop has already run statement_yield_ms.
   */
  due(): boolean {
    if (this.#waiting > 0) return true
    if (!this.#marking) {
      this.#marking = true
      setImmediate(this.#mark)
      this.#turn_began = performance.now()
      return false
    }
    return performance.now() - this.#turn_began >= statement_yield_ms
  }

  readonly #mark = (): void => {
    this.#marking = false
    this.#turn_began = performance.now()
  }

  /** Resolves at `tenant`'s next turn. */
  turn(tenant: string, priority: Priority = 'normal'): Promise<void> {
    return new Promise<void>((resolve) => {
      ;(priority === 'reserved' ? this.#reserved : this.#normal).push(tenant, resolve)
      this.#waiting += 1
      if (!this.#pumping) {
        this.#pumping = true
        setImmediate(this.#pump)
      }
    })
  }

  /**
   * Gives turns, round-robin, until this turn of the event loop has run
   * statement_yield_ms of them, then lets the loop read its I/O and goes on in the
   * next. Each turn's statement runs to its next await before the next turn is given:
   * Node runs every promise job before a tick queued from one, so a tick queued from a
   * promise job runs once the statement's jobs are done. (A tick queued here directly
   * would run first: Node runs ticks before promise jobs.)
   */
  readonly #pump = (): void => {
    this.#give(performance.now())
  }

  #give(began: number): void {
    const now = performance.now()
    const current = this.#current
    // A tenant keeps giving its own waiters turns for statement_yield_ms (deficit
    // round-robin by time): a tenant of many point reads is not held to one read per
    // turn of another's long statement.
    let next = current !== null && now - current.since < statement_yield_ms ? current.ring.take(current.tenant) : undefined
    if (next === undefined) {
      const ring = this.#reserved.size > 0 ? this.#reserved : this.#normal
      const picked = ring.shift()
      if (picked === undefined) {
        this.#pumping = false
        return
      }
      this.#current = { tenant: picked.tenant, ring, since: now }
      next = picked.waiter
    }
    this.#waiting -= 1
    this.turns += 1
    next()
    queueMicrotask(() => process.nextTick(() => {
      if (this.#waiting === 0) this.#pumping = false
      else if (performance.now() - began >= statement_yield_ms) setImmediate(this.#pump)
      else this.#give(began)
    }))
  }
}

/** The scheduler of this thread: every statement of its event loop shares it. */
export const scheduler = new FairScheduler()
