// A live tail of one tenant for the Tail page, on the client's change feed
// (src/client/tail.ts, docs/client.md "The change feed"): the feed reconnects with
// backoff and resumes after the last event it delivered, over WebSocket or long polls,
// and reports its state. What is the console's own: the page's states and their
// words, a gap (retention overtook the tail) accepted and continued from the oldest
// event still held, and a revoked token handed to the app.
import { TenantdbError, type TailStatus as FeedStatus } from '../../../src/client/index.js'
import type { ApiClient } from './client.js'
import type { TailEvent } from './types.js'

export type TailStatus =
  | { state: 'connecting' }
  | { state: 'live' }
  | { state: 'retrying'; reason: string; in_ms: number }
  | { state: 'stopped' }

export interface TailStreamOptions {
  tenant: string
  collection: string | null
  /** Deliver events after this LSN (exclusive). */
  after: number
  onEvent: (event: TailEvent) => void
  onStatus: (status: TailStatus) => void
  /** Retention overtook us (`lsn_expired`): events before `oldest_lsn` are gone. */
  onGap: (oldest_lsn: number) => void
  /** The token was revoked or expired, or its tenant deleted (401): the tail does not reconnect. */
  onRevoked: () => void
  /** Any other refusal that ends the feed (an unknown tenant or collection, a suspended tenant). */
  onError: (error: TenantdbError) => void
}

export class TailStream {
  readonly #api: ApiClient
  readonly #options: TailStreamOptions
  #after: number
  /** The feed running now; null once stopped. */
  #feed: AsyncIterableIterator<TailEvent> | null = null

  constructor(api: ApiClient, options: TailStreamOptions) {
    this.#api = api
    this.#options = options
    this.#after = options.after
  }

  /** The LSN of the last event delivered (the `after` of the next feed). */
  get after(): number {
    return this.#after
  }

  start(): void {
    void this.#run()
  }

  /** Ends the feed at once: its socket is closed, a poll in progress cancelled. */
  stop(): void {
    const feed = this.#feed
    this.#feed = null
    void feed?.return?.()
    this.#options.onStatus({ state: 'stopped' })
  }

  async #run(): Promise<void> {
    const { tenant, collection } = this.#options
    for (;;) {
      const feed: AsyncIterableIterator<TailEvent> = this.#api.tail(tenant, {
        after: this.#after,
        collections: collection === null ? [] : [collection],
        onStatus: (status) => { if (this.#feed === feed) this.#options.onStatus(pageStatus(status)) },
      })
      this.#feed = feed
      try {
        for await (const event of feed) {
          if (this.#feed !== feed) return
          this.#after = Math.max(this.#after, event.lsn)
          this.#options.onEvent(event)
        }
        return
      } catch (error) {
        if (this.#feed !== feed) return
        const oldest = error instanceof TenantdbError && error.code === 'lsn_expired' ? error.details.oldest_lsn : undefined
        if (typeof oldest === 'number') {
          // Resume from the oldest event still held, accepting the gap.
          this.#after = Math.max(0, oldest - 1)
          this.#options.onGap(oldest)
          continue
        }
        this.stop()
        if (error instanceof TenantdbError && error.status === 401) this.#options.onRevoked()
        else if (error instanceof TenantdbError) this.#options.onError(error)
        else throw error
        return
      }
    }
  }
}

/** The page shows a long-polling feed as live: events come as they commit either way. */
function pageStatus(status: FeedStatus): TailStatus {
  switch (status.state) {
    case 'connecting': return { state: 'connecting' }
    case 'live':
    case 'long-polling': return { state: 'live' }
    case 'retrying': return { state: 'retrying', reason: status.reason, in_ms: status.in_ms }
  }
}
