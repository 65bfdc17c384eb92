// The parent's side of bench/children/steady-reader.ts: a tenant reading at a steady,
// open-loop rate in a process of its own (so the load the parent drives meanwhile does
// not delay its requests or its clock), asked after each measured window how that
// window went.
import { startNodeChild, type Child } from './child.js'
import { sharedClockMs } from './clock.js'

export interface SteadyReadsOptions {
  /** The query route of the tenant read, and the token it takes. */
  url: string
  token: string
  /** Requests started per second, whatever the answers do. */
  rate: number
  /** Keep-alive connections the requests share. */
  connections: number
  /** The statement, with `$id` a key in [0, ids). */
  statement: string
  ids: number
}

export interface WindowReport {
  /** Milliseconds from each request's due time to its good answer (requests due in the window). */
  latencies: number[]
  /** Good answers to the requests due in the window that arrived before its end. */
  answered: number
  /** Requests due in the window answered with a failure, or not at all. */
  failed: number
  unanswered: number
  /** Why the first few failed. */
  failures: string[]
}

export class SteadyReads {
  readonly child: Child
  /** When the reader's schedule began (its first request's due time). */
  readonly #started: Promise<number>
  #reports = 0

  /** `start` runs the reader with its arguments (by default the compiled child script). */
  constructor(options: SteadyReadsOptions, start: (args: string[]) => Child = (args) => startNodeChild('steady-reader', args, {}, { input: true })) {
    const { url, token, rate, connections, ids, statement } = options
    this.child = start([url, token, String(rate), String(connections), String(ids), statement])
    this.#started = this.child.waitFor((l) => l.startsWith('{"started":')).then((line) => (JSON.parse(line) as { started: number }).started)
    // Awaited by every report; a reader that never starts fails there, not as an unhandled rejection.
    this.#started.catch(() => undefined)
  }

  /** How the requests due in [from, to) went (times on bench/harness/clock.ts's clock); waits for their answers. */
  async window(from: number, to: number): Promise<WindowReport> {
    await this.#started
    const n = this.#reports++
    this.child.send(JSON.stringify({ report: n, from, to }))
    const line = await this.child.waitFor((l) => l.startsWith(`{"report":${n},`))
    return JSON.parse(line) as WindowReport
  }

  /** Waits until the reader has started and every request due so far is settled: it has caught up with its schedule. */
  async caughtUp(): Promise<void> {
    await this.#started
    const now = sharedClockMs()
    await this.window(now, now)
  }

  async close(): Promise<void> {
    await this.child.kill()
  }
}
