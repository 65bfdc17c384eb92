// Calls a page's refresh on a timer without ever piling requests up: the next call is
// scheduled only once the last one has settled, errors back off (doubling up to a
// ceiling), and a hidden tab (another tab in front, a minimised window) is not polled
// at all: polling stops when the page is hidden and runs at once when it is shown.
export interface PollerOptions {
  every_ms: number
  /** Longest wait after repeated failures. */
  max_ms?: number
  run: () => Promise<void>
}

export class Poller {
  readonly #options: PollerOptions
  #timer: ReturnType<typeof setTimeout> | null = null
  #running = false
  #stopped = true
  #failures = 0
  readonly #onVisibility = () => {
    if (document.hidden) this.#clear()
    else if (!this.#stopped && !this.#running) void this.#tick()
  }

  constructor(options: PollerOptions) {
    this.#options = options
  }

  start(): void {
    if (!this.#stopped) return
    this.#stopped = false
    document.addEventListener('visibilitychange', this.#onVisibility)
    if (!document.hidden) void this.#tick()
  }

  stop(): void {
    this.#stopped = true
    this.#clear()
    document.removeEventListener('visibilitychange', this.#onVisibility)
  }

  /** Runs now (after the call in flight, if any) and carries on from there. */
  now(): void {
    if (this.#stopped || this.#running) return
    this.#clear()
    void this.#tick()
  }

  #clear(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
  }

  async #tick(): Promise<void> {
    this.#running = true
    try {
      await this.#options.run()
      this.#failures = 0
    } catch {
      this.#failures += 1
    } finally {
      this.#running = false
    }
    if (this.#stopped || document.hidden) return
    const wait = Math.min(this.#options.max_ms ?? 30_000, this.#options.every_ms * 2 ** Math.min(this.#failures, 6))
    this.#timer = setTimeout(() => { this.#timer = null; void this.#tick() }, wait)
  }
}
