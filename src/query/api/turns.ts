// A statement's share of its thread's event loop (docs/operations.md, "Isolation",
// "Fair turns"): the turns it waits for when it yields, and the charge of each run
// between them to its tenant, by which the scheduler orders tenants.
import { scheduler, type Admission } from '../../isolation/index.js'

/**
 * A statement's turns on the event loop (its tenant's, src/isolation/fair-scheduler.ts):
 * each run between two turns is charged to its tenant, and the time it waited for
 * them is counted.
 */
export class Turns {
  waited_ms = 0
  readonly #tenant: string
  readonly #share: Pick<Admission, 'priority' | 'weight'>
  /** When the statement last began to run (its start or its last turn); NaN once ended. */
  #resumed = performance.now()

  constructor(tenant: string, share: Pick<Admission, 'priority' | 'weight'>) {
    this.#tenant = tenant
    this.#share = share
  }

  readonly next = async (): Promise<void> => {
    const before = performance.now()
    scheduler.charge(this.#tenant, before - this.#resumed, this.#share.weight)
    await scheduler.turn(this.#tenant, this.#share.priority)
    this.#resumed = performance.now()
    this.waited_ms += this.#resumed - before
  }

  /**
   * At the statement's start: its first turn to wait for, when others wait for one
   * ahead of its tenant or this loop turn has run its share, else undefined (nothing
   * to await on the hot path).
   */
  start(): Promise<void> | undefined {
    return scheduler.due(this.#tenant, this.#share.priority) ? this.next() : undefined
  }

  /** Charges the statement's last run; once. */
  end(): void {
    if (Number.isNaN(this.#resumed)) return
    scheduler.charge(this.#tenant, performance.now() - this.#resumed, this.#share.weight)
    this.#resumed = NaN
  }
}
