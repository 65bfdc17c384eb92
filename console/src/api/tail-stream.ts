// A live tail over the WebSocket (docs/api.md, "Change tail"). It remembers
// the LSN of the last event it delivered and reconnects with ?after=<lsn> when the
// connection drops: `after` is exclusive, so nothing is duplicated and nothing missed.
//
// A browser WebSocket cannot see the HTTP status of a refused upgrade (401, 404, 410
// all look like close code 1006), so the caller validates with one poll first
// (ApiClient.tailPage), which answers those in words.
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
  /** Retention overtook us (close 4410): events up to `oldest_lsn` are gone. */
  onGap: (oldest_lsn: number) => void
  /** The token was revoked or expired (close 4401): the tail does not reconnect. */
  onRevoked: () => void
}

const retry_ms_first = 500
const retry_ms_max = 10_000

export class TailStream {
  readonly #api: ApiClient
  readonly #options: TailStreamOptions
  #socket: WebSocket | null = null
  #after: number
  #retry_ms = retry_ms_first
  #timer: ReturnType<typeof setTimeout> | null = null
  #stopped = false

  constructor(api: ApiClient, options: TailStreamOptions) {
    this.#api = api
    this.#options = options
    this.#after = options.after
  }

  /** The LSN of the last event delivered (the `after` of the next connection). */
  get after(): number {
    return this.#after
  }

  start(): void {
    this.#stopped = false
    this.#connect()
  }

  stop(): void {
    this.#stopped = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    const socket = this.#socket
    this.#socket = null
    socket?.close(1000, 'closed by the console')
    this.#options.onStatus({ state: 'stopped' })
  }

  #connect(): void {
    const { tenant, collection } = this.#options
    const query: Record<string, string> = { after: String(this.#after) }
    if (collection !== null) query.collection = collection
    this.#options.onStatus({ state: 'connecting' })
    const socket = new WebSocket(this.#api.tailSocketUrl(tenant, query))
    this.#socket = socket
    socket.onopen = () => {
      this.#retry_ms = retry_ms_first
      this.#options.onStatus({ state: 'live' })
    }
    socket.onmessage = (message) => {
      if (this.#socket !== socket || typeof message.data !== 'string') return
      const event = JSON.parse(message.data) as TailEvent
      this.#after = Math.max(this.#after, event.lsn)
      this.#options.onEvent(event)
    }
    socket.onclose = (close) => {
      if (this.#socket !== socket || this.#stopped) return
      this.#socket = null
      if (close.code === 4401) {
        this.#stopped = true
        this.#options.onStatus({ state: 'stopped' })
        this.#options.onRevoked()
        return
      }
      if (close.code === 4410) {
        // "lsn_expired; oldest_lsn=<n>": resume from the oldest event still held.
        const oldest = Number(/oldest_lsn=(\d+)/.exec(close.reason)?.[1] ?? this.#after + 1)
        this.#after = Math.max(0, oldest - 1)
        this.#options.onGap(oldest)
      }
      this.#scheduleRetry(closeReason(close))
    }
  }

  #scheduleRetry(reason: string): void {
    const in_ms = this.#retry_ms
    this.#retry_ms = Math.min(retry_ms_max, this.#retry_ms * 2)
    this.#options.onStatus({ state: 'retrying', reason, in_ms })
    this.#timer = setTimeout(() => {
      this.#timer = null
      if (!this.#stopped) this.#connect()
    }, in_ms)
  }
}

function closeReason(close: CloseEvent): string {
  switch (close.code) {
    case 1001: return 'the server is shutting down'
    case 1013: return 'the console fell behind; resuming where it left off'
    case 4410: return 'history expired; resumed from the oldest retained event'
    case 1006: return 'the connection was lost'
    default: return close.reason === '' ? `closed (${close.code})` : `${close.reason} (${close.code})`
  }
}
