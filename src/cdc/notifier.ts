// The change tail's wake-up: it follows the committer (src/txn/committer.ts), which
// every commit of the service goes through and which publishes each one once the
// engine settles it durable, and the engine's close; long polls and live
// subscriptions wait here instead of polling the engine. So no commit is missed, and
// no safety-net re-check is needed: after the close every wait ends at once, and the
// reader meets the closed engine's error.
// It only says "something newer than X exists"; readers read the engine itself (or,
// at the head, the payloads kept in `recent`, which are the very bytes committed), so a
// duplicated notification costs an empty read, never a repeated event.
// A commit's settle step only records it and the LSN; the waiters are woken in the
// next check phase of the event loop (setImmediate), once for every commit settled
// meanwhile: the writers whose commits just settled queue their next ones first, and
// every tail then reads a batch of commits per wake-up instead of one
// (docs/architecture.md, "The change feed").
import type { Committer } from '../txn/index.js'
import { RecentCommits } from './recent-commits.js'

export interface WaitOptions {
  /** Give up after this long (resolves false). Absent: wait until a commit or abort. */
  timeout_ms?: number | undefined
  /** Abort the wait (resolves false). */
  signal?: AbortSignal | undefined
}

interface Waiter {
  after: number
  settle(found: boolean): void
}

export class CommitNotifier {
  #latest: number
  #closed = false
  /** A wake-up of the waiters is scheduled for the next check phase. */
  #waking = false
  readonly #waiters = new Set<Waiter>()
  /** Payloads of the newest commits made through this database (see RecentCommits). */
  readonly recent = new RecentCommits()

  /** `latest_lsn`: the engine's current LSN when the notifier is made, if known. */
  constructor(latest_lsn = 0) {
    this.#latest = latest_lsn
  }

  /** A notifier of every durable commit `committer` makes from now on. */
  static following(committer: Committer): CommitNotifier {
    const notifier = new CommitNotifier(committer.head().lsn)
    committer.subscribe({ committed: (lsn, payload) => notifier.notify(lsn, payload), closed: () => notifier.close() })
    return notifier
  }

  /** The newest LSN notified. */
  get latest_lsn(): number {
    return this.#latest
  }

  /** Waiters currently registered (for tests and stats: memory stays bounded by them). */
  get waiting(): number {
    return this.#waiters.size
  }

  /**
   * Records a durable commit, with its payload when the caller has it; every waiter
   * waiting for something beyond an older LSN wakes in the next check phase.
   */
  notify(lsn: number, payload?: Buffer): void {
    if (payload !== undefined) this.recent.record(lsn, payload)
    if (lsn <= this.#latest) return
    this.#latest = lsn
    if (this.#waking || this.#waiters.size === 0) return
    this.#waking = true
    setImmediate(() => this.#wake())
  }

  #wake(): void {
    this.#waking = false
    const lsn = this.#latest
    for (const waiter of this.#waiters) if (waiter.after < lsn) waiter.settle(true)
  }

  /** No commit follows (the engine closed): every wait, now or later, resolves true at once. */
  close(): void {
    this.#closed = true
    for (const waiter of this.#waiters) waiter.settle(true)
  }

  /**
   * Resolves true once a commit with LSN > `after` was notified (at once if one was) or
   * the notifier closed: time to read again. False on timeout or abort.
   */
  waitFor(after: number, options: WaitOptions = {}): Promise<boolean> {
    if (this.#latest > after || this.#closed) return Promise.resolve(true)
    const { timeout_ms, signal } = options
    if (signal?.aborted === true || (timeout_ms !== undefined && timeout_ms <= 0)) return Promise.resolve(false)
    return new Promise<boolean>((resolve) => {
      const onAbort = () => waiter.settle(false)
      const timer = timeout_ms === undefined ? undefined : setTimeout(() => waiter.settle(false), timeout_ms)
      const waiter: Waiter = {
        after,
        settle: (found) => {
          // Unregister everything first: a settled waiter holds no timer, listener or slot.
          this.#waiters.delete(waiter)
          if (timer !== undefined) clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          resolve(found)
        },
      }
      this.#waiters.add(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }
}
