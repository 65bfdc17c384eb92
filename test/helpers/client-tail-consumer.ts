// A consumer of the client's change feed (src/client/tail.ts) for the tests that check
// it end to end (test/client-tail-kill9.test.ts, test/client-tail-proxy.test.ts): it
// runs one feed in the background for the whole run, keeps what the feed delivered (a
// ConsumerLog for test/helpers/tail-check.ts), how it ended, and which sessions the
// feed opened (each reconnect is one), and can be waited on until it delivered an LSN.
import { tailEventsWithHooks, type TailEvent, type TailHooks, type TailOptions } from '../../src/client/tail.js'
import type { FinalState, ConsumerLog } from './tail-check.js'
import { hang_guard_ms, pollUntil } from './poll.js'

export class FeedConsumer implements ConsumerLog {
  readonly events: TailEvent[] = []
  /** Sessions the feed started, by transport: the first one, then one per reconnect. */
  readonly sessions = { websocket: 0, poll: 0 }
  /** Set when the feed ended with an error. */
  error: unknown
  #feed: AsyncIterableIterator<TailEvent> | undefined
  #done: Promise<void> = Promise.resolve()

  /** `collection`: the one collection whose changes the checker expects (the feed's own filter may name more). */
  constructor(readonly name: string, readonly collection?: string) {}

  start(options: TailOptions, hooks: TailHooks = {}): void {
    this.#feed = tailEventsWithHooks(options, {
      ...hooks,
      started: (transport, url) => { this.sessions[transport] += 1; hooks.started?.(transport, url) },
    })
    const feed = this.#feed
    this.#done = (async () => {
      try {
        for await (const event of feed) this.events.push(event)
      } catch (err) {
        this.error = err
      }
    })()
  }

  /** The LSN of the last event delivered (0 before any). */
  get last(): number {
    return this.events[this.events.length - 1]?.lsn ?? 0
  }

  /**
   * Waits until an event at `lsn` or later was delivered, or the feed ended; a problem
   * if it did not deliver it within `guard_ms`.
   */
  async until(lsn: number, guard_ms = hang_guard_ms): Promise<string[]> {
    const reached = () => this.last >= lsn
    await pollUntil(() => reached() || this.error !== undefined, '', { hang_guard_ms: guard_ms }).catch(() => {})
    return reached() || this.error !== undefined ? [] : [`${this.name} is stuck at LSN ${this.last}; the sentinel is at ${lsn}`]
  }

  /** Ends the feed (its `return()`, as a `break` does) and waits for its loop. */
  async stop(): Promise<void> {
    await this.#feed?.return?.()
    await this.#done
  }

  /** The feed's error as a problem for the checker's list, if it ended with one. */
  problems(): string[] {
    if (this.error === undefined) return []
    const err = this.error as { code?: string; message?: string }
    return [`${this.name}: the feed ended with ${err.code ?? 'an error'}: ${err.message ?? String(this.error)}`]
  }
}

/** The final rows of `txns` and `items` of tenant `default`, read with `query` (rows of `[id, …columns]`) in pages. */
export async function readFinal(query: (text: string, params: Record<string, number>) => Promise<unknown[][]>): Promise<FinalState> {
  const read = async (collection: string, columns: string[]) => {
    const rows = new Map<number, Record<string, unknown>>()
    for (let after = -1; ;) {
      const page = await query(`${collection} | where id > $after | take 5000 | select ${columns.join(', ')}`, { after })
      for (const values of page) rows.set(values[0] as number, Object.fromEntries(columns.map((c, i) => [c, values[i]])))
      if (page.length < 5000) return rows
      after = page[page.length - 1]?.[0] as number
    }
  }
  return { txns: await read('txns', ['id', 'writer', 'seq']), items: await read('items', ['id', 'writer', 'v', 'tag']) }
}
