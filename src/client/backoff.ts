// Exponential backoff with jitter for the client's reconnects (docs/client.md, "The
// change feed"): each failure doubles the ceiling up to `max_ms`, and the wait is drawn
// between half the ceiling and the ceiling, so clients cut off together do not come
// back together.

export interface BackoffOptions {
  /** The first wait's ceiling. */
  initial_ms: number
  /** The largest wait. */
  max_ms: number
}

export const default_backoff: BackoffOptions = { initial_ms: 100, max_ms: 10_000 }

export class Backoff {
  #failures = 0

  constructor(readonly options: BackoffOptions = default_backoff, readonly random: () => number = Math.random) {
    if (!(options.initial_ms >= 0 && options.max_ms >= options.initial_ms)) throw new RangeError('backoff: need 0 ≤ initial_ms ≤ max_ms')
  }

  /** The wait before the next attempt, counting one more failure. */
  next(): number {
    const ceiling = Math.min(this.options.max_ms, this.options.initial_ms * 2 ** Math.min(this.#failures, 30))
    this.#failures += 1
    return Math.round(ceiling * (0.5 + this.random() / 2))
  }

  /** A connection worked: the next failure waits the initial time again. */
  reset(): void {
    this.#failures = 0
  }
}

/** Resolves after `ms`, or rejects with `signal`'s reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(signal.reason); return }
    const done = () => { signal.removeEventListener('abort', abort); resolve() }
    const timer = setTimeout(done, ms)
    const abort = () => { clearTimeout(timer); reject(signal.reason) }
    signal.addEventListener('abort', abort, { once: true })
  })
}
