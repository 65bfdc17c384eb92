// One call's end (docs/client.md, "Timeouts and cancellation"): the call's time limit
// and the caller's AbortSignal folded into the one signal its requests are sent with,
// so a call that tries several nodes has one budget, and whichever ended it names the
// error: `timeout` or `aborted`, never a generic network failure.
import { type TenantdbError, unansweredError } from './errors.js'

export class Deadline {
  readonly signal: AbortSignal
  readonly #controller = new AbortController()
  readonly #timer: ReturnType<typeof setTimeout>
  readonly #caller: AbortSignal | undefined
  readonly #onAbort = () => this.#controller.abort()
  readonly #timeout_ms: number
  #timedOut = false

  constructor(timeout_ms: number, caller?: AbortSignal) {
    this.signal = this.#controller.signal
    this.#timeout_ms = timeout_ms
    this.#caller = caller
    this.#timer = setTimeout(() => {
      this.#timedOut = true
      this.#controller.abort()
    }, timeout_ms)
    if (caller?.aborted === true) this.#controller.abort()
    else caller?.addEventListener('abort', this.#onAbort, { once: true })
  }

  /** The error of a call this deadline ended, or undefined while it has not. */
  ended(cause?: unknown): TenantdbError | undefined {
    if (this.#caller?.aborted === true) return unansweredError('aborted', 'the call was aborted by its caller', cause)
    if (this.#timedOut) return unansweredError('timeout', `no answer within ${this.#timeout_ms} ms (timeout_ms)`, cause)
    return undefined
  }

  /** Throws the call's end if it came (before a request is sent, or another node tried). */
  check(): void {
    const err = this.ended()
    if (err !== undefined) throw err
  }

  dispose(): void {
    clearTimeout(this.#timer)
    this.#caller?.removeEventListener('abort', this.#onAbort)
  }
}

/** Runs `fn` under a deadline, disposed however it ends. */
export async function withDeadline<T>(timeout_ms: number, caller: AbortSignal | undefined, fn: (deadline: Deadline) => Promise<T>): Promise<T> {
  const deadline = new Deadline(timeout_ms, caller)
  try {
    deadline.check()
    return await fn(deadline)
  } finally {
    deadline.dispose()
  }
}
