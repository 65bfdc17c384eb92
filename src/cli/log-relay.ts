// The log output of a worker thread of `tenantdb serve` (docs/operations.md, "Logs"):
// its lines are handed to the opening thread, a batch per turn of the loop, and written
// there by the one log output of the process, so one queue bounds them, one notice
// says that lines are lost, and the loss is counted once.
export class LogRelay {
  readonly #send: (lines: string[]) => void
  #lines: string[] = []

  constructor(send: (lines: string[]) => void) {
    this.#send = send
  }

  /** pino's destination: one JSON line. */
  write(line: string): boolean {
    if (this.#lines.length === 0) setImmediate(() => this.flush())
    this.#lines.push(line)
    return true
  }

  /** Hands over what is queued now. */
  flush(): void {
    if (this.#lines.length === 0) return
    const lines = this.#lines
    this.#lines = []
    this.#send(lines)
  }
}
