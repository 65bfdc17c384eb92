// Which of a `tenantdb serve` child's threads answered each tenant's requests, read from
// its request log lines (docs/operations.md, "Logs": a worker's line has `thread`, from
// 1; the opening thread's has none, counted here as 0). The kernel spreads connections
// over the threads' listening sockets (SO_REUSEPORT), so whether two tenants share a
// thread's event loop is decided per connection; this tells afterwards how it went.
import type { Child } from './child.js'

/** Requests answered, by tenant, then by thread. */
export type Tally = Map<string, Map<number, number>>

export class ThreadTally {
  #counts: Tally | null = null

  constructor(server: Child) {
    server.onLine((line) => {
      if (this.#counts === null || !line.includes('"msg":"request"')) return
      const entry = JSON.parse(line) as { tenant?: string; thread?: number }
      if (entry.tenant === undefined) return
      const byThread = this.#counts.get(entry.tenant) ?? new Map<number, number>()
      byThread.set(entry.thread ?? 0, (byThread.get(entry.thread ?? 0) ?? 0) + 1)
      this.#counts.set(entry.tenant, byThread)
    })
  }

  /** Counts from now on, afresh. */
  start(): void {
    this.#counts = new Map()
  }

  /** Stops counting and returns what was counted since start(). */
  stop(): Tally {
    const counts = this.#counts ?? new Map()
    this.#counts = null
    return counts
  }
}

/** The share of `tenant`'s requests answered by a thread that also answered `other`'s (0 when it had none). */
export function sharedShare(tally: Tally, tenant: string, other: string): number {
  const mine = tally.get(tenant) ?? new Map<number, number>()
  const theirs = tally.get(other) ?? new Map<number, number>()
  let all = 0
  let shared = 0
  for (const [thread, n] of mine) {
    all += n
    if (theirs.has(thread)) shared += n
  }
  return all === 0 ? 0 : shared / all
}
