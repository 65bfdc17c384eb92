// A tenant that keeps a server busy: `width` clients, each posting a statement to the
// query route and the next as soon as it is answered, until stopped. Failures (a
// timeout, a limit, a refused connection) are counted by their code and the loop goes
// on: they are what the load measures, not a fault of the harness.

export interface LoopOutcome {
  /** Statements answered with 200. */
  done: number
  /** Failed statements by their error code (`network` when no HTTP answer came). */
  errors: Record<string, number>
}

/** Longer than any statement may run (the server's request timeout), so a hung server shows as `no_answer`. */
const answer_wait_ms = 90_000
/** After a failure without an answer, so a dead server is not hammered in a tight loop. */
const network_backoff_ms = 50

export class StatementLoop {
  readonly #workers: Array<Promise<void>> = []
  readonly #outcome: LoopOutcome = { done: 0, errors: {} }
  #stopped = false
  #sent = 0

  /** Starts `width` clients posting `body(n)` for n = 0, 1, … to `url`. */
  constructor(readonly url: string, readonly token: string, width: number, readonly body: (n: number) => string) {
    for (let i = 0; i < width; i += 1) this.#workers.push(this.#worker())
  }

  async #worker(): Promise<void> {
    while (!this.#stopped) {
      const code = await this.#post(this.body(this.#sent++))
      if (code === null) this.#outcome.done += 1
      else this.#outcome.errors[code] = (this.#outcome.errors[code] ?? 0) + 1
      if (code === 'network' || code === 'no_answer') await new Promise((resolve) => setTimeout(resolve, network_backoff_ms))
    }
  }

  /** null when answered with 200, else the failure's code. */
  async #post(body: string): Promise<string | null> {
    let status: number
    let text: string
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body,
        signal: AbortSignal.timeout(answer_wait_ms),
      })
      status = res.status
      text = await res.text()
    } catch (err) {
      return err instanceof Error && err.name === 'TimeoutError' ? 'no_answer' : 'network'
    }
    if (status === 200) return null
    try {
      return (JSON.parse(text) as { code?: string }).code ?? `http_${status}`
    } catch {
      return `http_${status}`
    }
  }

  /** Stops sending and waits for the statements in flight. */
  async stop(): Promise<LoopOutcome> {
    this.#stopped = true
    await Promise.all(this.#workers)
    return this.#outcome
  }
}
