// Counts failed authentications per address and blocks an address that fails too
// often, so the token cannot be guessed at line rate. Memory is bounded: entries
// expire with their window and the table never holds more than a fixed number.
import { auth_failure_window_ms, auth_failures_max, auth_throttle_addresses_max } from '../limits.js'

interface Failures {
  count: number
  window_start_ms: number
}

export class AuthThrottle {
  readonly #failures = new Map<string, Failures>()
  readonly #now: () => number

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  /** Seconds the address must wait, or 0 when it may try. */
  retryAfterSeconds(address: string): number {
    const entry = this.#current(address)
    if (entry === undefined || entry.count < auth_failures_max) return 0
    return Math.max(1, Math.ceil((entry.window_start_ms + auth_failure_window_ms - this.#now()) / 1000))
  }

  recordFailure(address: string): void {
    const entry = this.#current(address)
    if (entry !== undefined) {
      entry.count += 1
      return
    }
    if (this.#failures.size >= auth_throttle_addresses_max) this.#prune()
    this.#failures.set(address, { count: 1, window_start_ms: this.#now() })
  }

  #current(address: string): Failures | undefined {
    const entry = this.#failures.get(address)
    if (entry !== undefined && this.#now() - entry.window_start_ms >= auth_failure_window_ms) {
      this.#failures.delete(address)
      return undefined
    }
    return entry
  }

  #prune(): void {
    const now = this.#now()
    for (const [address, entry] of this.#failures) {
      if (now - entry.window_start_ms >= auth_failure_window_ms) this.#failures.delete(address)
    }
    // Still full of live entries: drop the oldest (Map keeps insertion order).
    while (this.#failures.size >= auth_throttle_addresses_max) {
      const oldest = this.#failures.keys().next().value
      if (oldest === undefined) break
      this.#failures.delete(oldest)
    }
  }
}
