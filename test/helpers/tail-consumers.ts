// The read side of the change-tail crash test (test/crash-tail-kill9.test.ts): consumers
// of a real server's change tail, over HTTP polls and over WebSockets, that keep their
// place (`after`) in memory and resume from it against whatever server comes next
// (docs/api.md, "Change tail"). A poll's page counts as processed once its whole body
// arrived, and `after` becomes its `last_lsn`; a WebSocket message counts once
// received, and `after` becomes its event's LSN. Anything the server answers that the
// documentation does not promise is recorded as a problem.
import WebSocket from 'ws'
import type { TailEvent } from '../../src/cdc/index.js'
import type { ConsumerLog } from './tail-check.js'

export type ConsumerKind = 'poll' | 'long-poll' | 'websocket'

/** Where the current server is, and when to stop. */
export interface Session {
  url: string // http://127.0.0.1:PORT/api/v1
  token: string
  /** True once the consumer should stop (the server was killed, or the run is over). */
  stop(): boolean
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class TailConsumer implements ConsumerLog {
  readonly events: TailEvent[] = []
  readonly problems: string[] = []
  /** The `after` it resumes from: the last LSN it processed. */
  after = 0
  /** Requests or sessions that started with an `after` above 0 (resumes). */
  resumes = 0
  /** Polls and WebSocket sessions the kill cut off. */
  cut = 0
  /** Runs of polls that the kill ended between two polls. */
  between = 0

  constructor(
    readonly name: string,
    readonly kind: ConsumerKind,
    readonly random: () => number,
    readonly tenant: string,
    readonly collection?: string,
  ) {}

  /** Consumes until `session.stop()`, or until the server goes away. */
  async run(session: Session): Promise<void> {
    if (this.kind === 'websocket') await this.#websocket(session)
    else await this.#poll(session)
  }

  #query(extra: Record<string, number | string>): string {
    const params = new URLSearchParams({ after: String(this.after), ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])) })
    if (this.collection !== undefined) params.set('collection', this.collection)
    return params.toString()
  }

  #accept(event: TailEvent, bound: number, where: string): void {
    if (!(event.lsn > this.after && event.lsn <= bound)) this.problems.push(`${this.name}: ${where} delivered LSN ${event.lsn} after ${this.after} (bound ${bound})`)
    this.events.push(event)
    this.after = event.lsn
  }

  async #poll(session: Session): Promise<void> {
    let polled = false
    for (; !session.stop(); polled = true) {
      const limit = 1 + Math.floor(this.random() * 25)
      const wait_ms = this.kind === 'long-poll' ? 100 + Math.floor(this.random() * 1500) : 0
      // A plain poller often pauses long, so a kill finds it between two polls too; a long
      // poller asks again at once, as real ones do, so kills land inside its requests.
      const gap_ms = this.kind === 'long-poll' ? 0 : Math.floor(this.random() * (this.random() < 0.5 ? 40 : 400))
      const url = `${session.url}/t/${this.tenant}/tail?${this.#query(wait_ms > 0 ? { limit, wait_ms } : { limit })}`
      if (this.after > 0) this.resumes += 1
      let status: number
      let body: { events: TailEvent[]; last_lsn: number; head_lsn: number }
      try {
        const res = await fetch(url, { headers: { authorization: `Bearer ${session.token}` } })
        status = res.status
        body = await res.json() as typeof body
      } catch {
        // Killed before the whole page arrived: nothing of it was processed.
        this.cut += 1
        return
      }
      if (status !== 200) {
        this.problems.push(`${this.name}: ${url.replace(/^.*\/api\/v1/, '')} answered ${status} ${JSON.stringify(body)}`)
        return
      }
      if (!(body.last_lsn >= this.after && body.last_lsn <= body.head_lsn)) this.problems.push(`${this.name}: a page after ${this.after} has last_lsn ${body.last_lsn}, head_lsn ${body.head_lsn}`)
      for (const event of body.events) this.#accept(event, body.last_lsn, 'a poll')
      this.after = Math.max(this.after, body.last_lsn)
      if (gap_ms > 0) await pause(gap_ms)
    }
    if (polled) this.between += 1
  }

  /**
   * WebSocket sessions, each ended by the consumer after a random time (a clean
   * resume) or by the kill (a resume across a crash), until `stop()`.
   */
  async #websocket(session: Session): Promise<void> {
    while (!session.stop()) {
      const lasts_ms = 30 + Math.floor(this.random() * 600)
      const ws = session.url.replace(/^http/, 'ws')
      const url = `${ws}/t/${this.tenant}/tail?${this.#query({ token: session.token })}`
      if (this.after > 0) this.resumes += 1
      const ended = await new Promise<'closed' | 'cut'>((resolve) => {
        const socket = new WebSocket(url)
        let opened = false
        const timer = setInterval(() => {
          // The consumer's own end of the session, or the end of the run.
          if (session.stop() || (opened && Date.now() - started > lasts_ms)) socket.close()
        }, 5)
        const started = Date.now()
        socket.on('open', () => { opened = true })
        socket.on('message', (data, isBinary) => {
          if (isBinary) { this.problems.push(`${this.name}: a binary message`); return }
          this.#accept(JSON.parse(String(data)) as TailEvent, Number.MAX_SAFE_INTEGER, 'a WebSocket')
        })
        socket.on('unexpected-response', (req, res) => {
          this.problems.push(`${this.name}: the upgrade with after=${this.after} was refused with ${res.statusCode}`)
          req.destroy()
        })
        socket.on('error', () => {})
        socket.on('close', (code, reason) => {
          clearInterval(timer)
          // 1000/1005: the consumer closed it. 1006: the connection dropped (the kill).
          // 1013: the server found the consumer too slow, and names where to resume,
          // which must be where the consumer is (docs/api.md, "Change tail").
          if (code === 1006 || !opened) resolve('cut')
          else {
            const slow = code === 1013 && String(reason) === `consumer too slow; resume with after=${this.after}`
            if (code !== 1000 && code !== 1005 && !slow) this.problems.push(`${this.name}: closed by the server with ${code} ${String(reason)} (at ${this.after})`)
            resolve('closed')
          }
        })
      })
      if (ended === 'cut') {
        this.cut += 1
        return
      }
    }
  }
}
