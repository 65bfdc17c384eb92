// Where `tenantdb serve` writes its JSON log lines. Logging must never hold up serving
// (docs/operations.md, "Logs"): a line is queued in memory and one asynchronous write at
// a time carries the queue to the file descriptor. Lines are gathered for up to
// log_write_delay_ms (or until log_write_bytes are queued) before a write, so a busy
// server makes a few writes a second, not one per request: each write costs a round
// through libuv's thread pool. When the output cannot take lines (a
// full disk, a closed pipe, any error but EAGAIN), or the queue passes its bound because
// the output is too slow, lines are dropped and counted, the failure is said once on
// stderr, and once output works again the log itself records how many lines were lost.
// Nothing waits on the output in a loop: `end` waits a bounded time, then gives up.
import { write } from 'node:fs'
import { log_queue_bytes_max, log_retry_ms, log_write_bytes, log_write_delay_ms } from '../limits.js'

export interface LogDestinationOptions {
  /** Queued bytes beyond which new lines are dropped (default log_queue_bytes_max). */
  queueBytesMax?: number
  /** Told once per failure episode, with a sentence; defaults to a line on stderr. */
  onFailure?: (message: string) => void
  /** How long lines are gathered before a write (default log_write_delay_ms). */
  writeDelayMs?: number
}

export class LogDestination {
  readonly #fd: number
  readonly #queue_bytes_max: number
  readonly #on_failure: (message: string) => void
  readonly #write_delay_ms: number
  #queue: string[] = []
  #queued_bytes = 0
  /** Bytes of a partly written chunk, written before anything queued after it. */
  #rest: Buffer | null = null
  #writing = false
  #retry: NodeJS.Timeout | null = null
  /** The write of the lines gathered so far, due when they have waited log_write_delay_ms. */
  #due: NodeJS.Timeout | null = null
  /** Lines lost in the current failure episode, reported once output works again. */
  #lost = 0
  #lost_total = 0
  /** Why output failed, while it is failing. */
  #failure: string | null = null
  #idle: Array<() => void> = []

  constructor(fd: number, options: LogDestinationOptions = {}) {
    this.#fd = fd
    this.#queue_bytes_max = options.queueBytesMax ?? log_queue_bytes_max
    this.#on_failure = options.onFailure ?? reportOnStderr
    this.#write_delay_ms = options.writeDelayMs ?? log_write_delay_ms
  }

  /** Lines dropped since start. */
  get droppedLines(): number {
    return this.#lost_total
  }

  /** pino's destination interface: one serialised line, newline included. */
  write(line: string): boolean {
    if (this.#queued_bytes + line.length > this.#queue_bytes_max) {
      this.#drop(1, 'the log output is not keeping up')
      return true
    }
    this.#queue.push(line)
    this.#queued_bytes += line.length
    if (!this.#writing && this.#retry === null) this.#gather()
    return true
  }

  /** Writes now when enough is queued, else once the first queued line has waited the delay. */
  #gather(): void {
    if (this.#queued_bytes < log_write_bytes && this.#write_delay_ms > 0) {
      if (this.#due === null) {
        this.#due = setTimeout(() => {
          this.#due = null
          if (!this.#writing && this.#retry === null) this.#drain()
        }, this.#write_delay_ms)
        this.#due.unref()
      }
      return
    }
    this.#writeNow()
  }

  #writeNow(): void {
    if (this.#due !== null) {
      clearTimeout(this.#due)
      this.#due = null
    }
    this.#drain()
  }

  /** Resolves once everything queued is written or dropped, or after `timeout_ms`. */
  end(timeout_ms: number): Promise<void> {
    // Gathered lines go at once.
    if (this.#due !== null && !this.#writing && this.#retry === null) this.#writeNow()
    if (this.#isIdle()) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeout_ms)
      this.#idle.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  #isIdle(): boolean {
    return !this.#writing && this.#retry === null && this.#due === null && this.#rest === null && this.#queue.length === 0
  }

  #drain(): void {
    let chunk = this.#rest
    let lines = 0
    let notice = 0
    if (chunk === null) {
      if (this.#queue.length === 0) return this.#settle()
      lines = this.#queue.length
      // The lines lost earlier are told before the next ones that make it out.
      notice = this.#lost
      const text = this.#queue.join('')
      chunk = Buffer.from(notice > 0 ? lostNotice(notice) + text : text, 'utf8')
      this.#queue = []
      this.#queued_bytes = 0
    }
    this.#rest = null
    this.#writing = true
    const buffer = chunk
    write(this.#fd, buffer, 0, buffer.length, null, (err, written) => {
      this.#writing = false
      if (err !== null) {
        if (err.code === 'EAGAIN') {
          // A non-blocking pipe that is full: the same bytes go again shortly.
          this.#rest = buffer
          return this.#retryLater()
        }
        // The chunk's lines are lost (a partly written one's rest too); the notice
        // of earlier losses goes out with a later chunk.
        this.#drop(Math.max(lines, 1), err.message)
        return this.#retryLater()
      }
      this.#failure = null
      this.#lost -= notice
      if (written < buffer.length) {
        this.#rest = buffer.subarray(written)
        return this.#drain()
      }
      // What queued meanwhile is gathered like any line, unless a stop waits for it.
      if (this.#queue.length === 0 || this.#idle.length > 0) return this.#drain()
      this.#gather()
    })
  }

  /** After a failure, the next attempt waits a little, so a dead output costs no CPU. */
  #retryLater(): void {
    if (this.#retry !== null) return
    this.#retry = setTimeout(() => {
      this.#retry = null
      this.#drain()
    }, log_retry_ms)
    this.#retry.unref()
  }

  #drop(lines: number, why: string): void {
    this.#lost += lines
    this.#lost_total += lines
    if (this.#failure !== null) return
    this.#failure = why
    this.#on_failure(`tenantdb: log output failed (${why}); dropping log lines until it works again`)
  }

  #settle(): void {
    const waiting = this.#idle
    this.#idle = []
    for (const resolve of waiting) resolve()
  }
}

function lostNotice(lines: number): string {
  return `${JSON.stringify({ level: 40, time: Date.now(), msg: `${lines} log lines were lost while the log output failed` })}\n`
}

/** Best effort: stderr may sit on the same full disk, and must not block either. */
function reportOnStderr(message: string): void {
  write(2, `${message}\n`, () => {})
}
