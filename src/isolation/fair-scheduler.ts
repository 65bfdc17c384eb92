// Turns on the event loop for statements that wait for one (docs/operations.md,
// "Isolation"; docs/architecture.md, "Invariants", 8). A long statement yields every
// statement_yield_ms (src/query/pace/); a statement that begins while others wait for
// a turn waits too, unless its tenant would be served first anyway.
//
// Which tenant goes next is start-time fair queueing (Goyal, Vin and Cheng, 1996), by
// time: each statement's run between two turns is charged to its tenant, divided by
// the tenant's weight, and the waiting tenant with the least charged so far, as a
// virtual start time, goes next. So a tenant of light point reads, whose tag stays
// low, goes before a tenant whose long statements have each run a slice, however many
// of them wait, and tenants with equal work take turns round-robin. A tenant within
// its reserved budgets goes before those beyond theirs, and a tenant's weight is its
// reserved read budget (turn_weight_rows_per_s). A tenant's tag is never more than
// turn_lag_ms_max ahead of the clock, so work done while nobody waited is not held
// against it for long.
//
// Turns run from a check callback for statement_yield_ms at most, then the rest in the
// next turn of the event loop (setImmediate queued from a check callback runs in the
// next loop turn), so the I/O of every other request is read within about
// statement_yield_ms, not behind every statement that yielded. Short statements never
// yield, but many of them arriving in one loop turn (a write flood of 64 in flight)
// would run back to back before any other request is read, so the scheduler also marks
// the start of each loop turn (a setImmediate runs at its end, and the next turn starts
// there): a statement that starts when the current turn has already run
// statement_yield_ms waits for a turn of its own.
import { statement_yield_ms, turn_lag_ms_max } from '../limits.js'

export type Priority = 'reserved' | 'normal'

interface Waiter {
  resume: () => void
  reserved: boolean
}

/** A tenant's place in the scheduler: its waiting statements and its virtual times. */
class Flow {
  readonly queue: Waiter[] = []
  /** Virtual start time of its first waiter's turn. */
  start = 0
  /** Virtual time its charged work ends at. */
  finish = 0
  weight = 1

  constructor(readonly tenant: string) {}
}

/** Flows kept without waiters (their tags) before the ones with no lead are dropped. */
const idle_flows_max = 1024

export class FairScheduler {
  readonly #flows = new Map<string, Flow>()
  /** Flows with waiters, in the order they last began waiting or were served: ties go to the first. */
  readonly #waiting = new Set<Flow>()
  #count = 0
  /** The virtual clock: the start tag of the last turn given. */
  #clock = 0
  #pumping = false
  /** When the current turn of the event loop began (as near as a check callback tells), and whether the next mark is queued. */
  #turn_began = performance.now()
  #marking = false
  /** Turns given since the process began (a test and the figures read it). */
  turns = 0

  /** Statements waiting for a turn now. */
  get waiting(): number {
    return this.#count
  }

  /**
   * Whether a statement of `tenant` starting now should wait for a turn: another
   * tenant's waiting statement would go first, or nobody waits but this turn of the
   * event loop has already run statement_yield_ms.
   */
  due(tenant: string, priority: Priority = 'normal'): boolean {
    if (this.#count > 0) return !this.#first(tenant, priority === 'reserved')
    if (!this.#marking) {
      this.#marking = true
      setImmediate(this.#mark)
      this.#turn_began = performance.now()
      return false
    }
    return performance.now() - this.#turn_began >= statement_yield_ms
  }

  /**
   * Charges `ms` of a statement's run (from its start or its last turn to its next
   * wait or its end) to `tenant`, at `weight` shares.
   */
  charge(tenant: string, ms: number, weight = 1): void {
    const flow = this.#flow(tenant)
    flow.weight = weight
    flow.finish = Math.max(flow.finish, this.#clock) + ms / weight
    if (flow.queue.length > 0) flow.start = this.#lead(flow)
  }

  /** Resolves at `tenant`'s next turn. */
  turn(tenant: string, priority: Priority = 'normal'): Promise<void> {
    return new Promise<void>((resume) => {
      const flow = this.#flow(tenant)
      if (flow.queue.length === 0) {
        flow.start = this.#lead(flow)
        this.#waiting.add(flow)
      }
      flow.queue.push({ resume, reserved: priority === 'reserved' })
      this.#count += 1
      if (!this.#pumping) {
        this.#pumping = true
        setImmediate(this.#pump)
      }
    })
  }

  readonly #mark = (): void => {
    this.#marking = false
    this.#turn_began = performance.now()
  }

  #flow(tenant: string): Flow {
    let flow = this.#flows.get(tenant)
    if (flow === undefined) {
      if (this.#flows.size >= idle_flows_max) this.#sweep()
      flow = new Flow(tenant)
      flow.finish = this.#clock
      this.#flows.set(tenant, flow)
    }
    return flow
  }

  /** A waiting flow's start tag: its work's end, but no earlier than the clock and no more than turn_lag_ms_max past it. */
  #lead(flow: Flow): number {
    return Math.max(this.#clock, Math.min(flow.finish, this.#clock + turn_lag_ms_max / flow.weight))
  }

  /** Whether a statement of `tenant` would be served before every waiting one. */
  #first(tenant: string, reserved: boolean): boolean {
    const flow = this.#flows.get(tenant)
    if (flow !== undefined && flow.queue.length > 0) return false
    const start = flow === undefined ? this.#clock : this.#lead(flow)
    for (const other of this.#waiting) {
      const head = other.queue[0] as Waiter
      if (head.reserved !== reserved ? head.reserved : other.start <= start) return false
    }
    return true
  }

  /** The waiting flow served next: reserved first, then the least start tag, ties to the first waiting. */
  #next(): Flow | undefined {
    let best: Flow | undefined
    for (const flow of this.#waiting) {
      if (best === undefined) { best = flow; continue }
      const a = (flow.queue[0] as Waiter).reserved
      const b = (best.queue[0] as Waiter).reserved
      if (a !== b ? a : flow.start < best.start) best = flow
    }
    return best
  }

  /** Drops flows with nobody waiting and no lead on the clock: they would start at the clock anyway. */
  #sweep(): void {
    for (const [tenant, flow] of this.#flows) {
      if (flow.queue.length === 0 && flow.finish <= this.#clock) this.#flows.delete(tenant)
    }
    // Still full (every idle flow ahead of the clock): forget the leads of the idle ones.
    if (this.#flows.size >= idle_flows_max) {
      for (const [tenant, flow] of this.#flows) if (flow.queue.length === 0) this.#flows.delete(tenant)
    }
  }

  /**
   * Gives turns until this turn of the event loop has run statement_yield_ms of them,
   * then lets the loop read its I/O and goes on in the next. Each turn's statement runs
   * to its next await before the next turn is given: Node runs every promise job
   * before a tick queued from one, so a tick queued from a promise job runs once the
   * statement's jobs are done. (A tick queued here directly would run first: Node runs
   * ticks before promise jobs.)
   */
  readonly #pump = (): void => {
    this.#give(performance.now())
  }

  #give(began: number): void {
    const flow = this.#next()
    if (flow === undefined) {
      this.#pumping = false
      return
    }
    const waiter = flow.queue.shift() as Waiter
    this.#clock = Math.max(this.#clock, flow.start)
    this.#waiting.delete(flow)
    if (flow.queue.length > 0) {
      // To the back of the ties: tenants with equal tags take turns.
      flow.start = this.#lead(flow)
      this.#waiting.add(flow)
    }
    this.#count -= 1
    this.turns += 1
    waiter.resume()
    queueMicrotask(() => process.nextTick(() => {
      if (this.#count === 0) this.#pumping = false
      else if (performance.now() - began >= statement_yield_ms) setImmediate(this.#pump)
      else this.#give(began)
    }))
  }
}

/** The scheduler of this thread: every statement of its event loop shares it. */
export const scheduler = new FairScheduler()
