// Progress on stderr: one rewritten line on a TTY, one line per step otherwise (CI
// logs), so stdout carries only the report.

export class Progress {
  readonly #tty = process.stderr.isTTY === true
  #prefix = ''
  #shown = false

  begin(prefix: string): void {
    this.#prefix = prefix
  }

  step(message: string): void {
    const line = `${this.#prefix} ${message}`
    if (this.#tty) {
      const width = process.stderr.columns ?? 100
      process.stderr.write(`\r${line.slice(0, width - 1).padEnd(width - 1)}`)
      this.#shown = true
    } else {
      process.stderr.write(`${line}\n`)
    }
  }

  end(): void {
    if (this.#tty && this.#shown) process.stderr.write(`\r${''.padEnd((process.stderr.columns ?? 100) - 1)}\r`)
    this.#shown = false
  }
}
