// Turns on the event loop for statements that wait for one (docs/operations.md,
// "Isolation"; docs/architecture.md, "Invariants", 8). A long statement yields every
// statement_yield_ms (src/query/pace/); a statement that begins while others wait for
// a turn waits too. Waiting statements get turns round-robin by tenant, so a tenant
// with many statements in flight gets no more turns than one with a single statement,
// and a tenant still within its reserved budgets goes before those beyond theirs.
// One turn runs per turn of the event loop (setImmediate queued from a check callback
// runs in the next loop turn), so the I/O of every other request, a point read of
// another tenant above all, is served between any two turns: it waits behind one
// turn at most, not behind every statement that yielded.
export type Priority = 'reserved' | 'normal'

type Waiter = () => void

class Ring {
  /** Insertion-ordered: the tenant served next is the first with someone waiting. */
  readonly #queues = new Map<string, Waiter[]>()

  get size(): number {
    return this.#queues.size
  }

  push(tenant: string, waiter: Waiter): void {
    const queue = this.#queues.get(tenant)
    if (queue === undefined) this.#queues.set(tenant, [waiter])
    else queue.push(waiter)
  }

  /** The next tenant's first waiter; that tenant goes to the back of the ring. */
  shift(): Waiter | undefined {
    for (const [tenant, queue] of this.#queues) {
      const waiter = queue.shift()
      this.#queues.delete(tenant)
      if (queue.length > 0) this.#queues.set(tenant, queue)
      if (waiter !== undefined) return waiter
    }
    return undefined
  }
}

export class FairScheduler {
  readonly #reserved = new Ring()
  readonly #normal = new Ring()
  #waiting = 0
  #pumping = false
  /** Turns given since the process began (a test and the figures read it). */
  turns = 0

  /** Statements waiting for a turn now. */
  get waiting(): number {
    return this.#waiting
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

  readonly #pump = (): void => {
    const next = this.#reserved.shift() ?? this.#normal.shift()
    if (next === undefined) {
      this.#pumping = false
      return
    }
    this.#waiting -= 1
    this.turns += 1
    next()
    if (this.#waiting > 0) setImmediate(this.#pump)
    else this.#pumping = false
  }
}

/** The scheduler of this thread: every statement of its event loop shares it. */
export const scheduler = new FairScheduler()
