// The change feed of a tenant as an async iterator (docs/client.md, "The change
// feed"): the backlog after `after`, then live events, in LSN order, each once,
// across any number of reconnects. It keeps one position, the LSN of the last event
// it delivered (or a poll page's `last_lsn`, which may pass events a filter left out),
// and every reconnect resumes from it: `after` is exclusive (docs/api.md, "Change
// tail"), so nothing is delivered twice and nothing is missed.
import type { TailEvent, TailPage } from '../http/wire/tail.js'
import { Backoff, sleep, type BackoffOptions } from './backoff.js'
import { unansweredError } from './errors.js'
import { closeVerdict, type Verdict } from './tail-failure.js'
import { filtered } from './tail-filter.js'
import type { FetchFunction } from './transport.js'
import { poll, tailUrl, type TailTarget } from './tail-request.js'
import { socketSession, type SocketEnd, type WebSocketConstructor } from './tail-socket.js'
import { statusReporter, type TailStatus } from './tail-status.js'

export type { TailEvent } from '../http/wire/tail.js'
export type { TailStatus } from './tail-status.js'
export type { WebSocketConstructor } from './tail-socket.js'

export interface TailOptions {
  /** One or more nodes' base URLs (`http://127.0.0.1:7070`); a follower serves the tail too. */
  urls: string[]
  /** The service token, or a tenant token of `tenant`. */
  token: string
  tenant: string
  /** Deliver the events after this LSN (exclusive); absent: from the oldest retained event. */
  after?: number
  /** Only these collections' changes (absent or empty: every collection). */
  collections?: string[]
  /** Ends the feed with `aborted`. */
  signal?: AbortSignal
  /** The WebSocket class (default: the global one); without one, the feed long-polls. */
  WebSocket?: WebSocketConstructor
  fetch?: FetchFunction
  /** The waits between reconnects (default 100 ms doubling up to 10 s, with jitter). */
  backoff?: BackoffOptions
  /** Each change of the feed's state: connecting, live (a WebSocket), long-polling, retrying (why, and in how long). */
  onStatus?: (status: TailStatus) => void
}

/** How long one long poll waits for an event (docs/api.md: at most 30 000). */
export const long_poll_wait_ms = 20_000
/** The most events of one poll page. */
export const poll_limit = 1_000
/** Upgrades that failed while a poll of the same node answered: past this many in a row, the feed long-polls. */
export const upgrade_refusals_max = 2
/** How long it long-polls then before it tries a WebSocket again (what refused the upgrade may be gone). */
export const upgrade_retry_ms = 60_000

/** Ways in for the tests alone (test/helpers/client-tail-run.ts): never set by the package. */
export interface TailHooks {
  /** The `after` a (re)connection asks for, given the position; the identity in the package. */
  resumeAfter?(position: number): number
  /** The most events a WebSocket session holds undelivered (tail-socket.ts's socket_queue_max in the package). */
  socketQueueMax?: number
  /** Each session or poll started: which transport, at which node. */
  started?(transport: 'websocket' | 'poll', url: string): void
}

/** The change feed: `for await (const event of tailEvents({...}))`. */
export function tailEvents(options: TailOptions): AsyncIterableIterator<TailEvent> {
  return tailEventsWithHooks(options, {})
}

/** tailEvents with the tests' hooks (tail.ts's TailHooks). */
export function tailEventsWithHooks(options: TailOptions, hooks: TailHooks): AsyncIterableIterator<TailEvent> {
  if (options.urls.length === 0) throw new TypeError('tailEvents: urls names no node')
  // Ours: `return()` (a `break`) aborts whatever the feed awaits, at once.
  const stopped = new AbortController()
  const signal = options.signal === undefined ? stopped.signal : AbortSignal.any([options.signal, stopped.signal])
  const feed = follow(options, hooks, signal, stopped.signal)
  const iterator: AsyncIterableIterator<TailEvent> = {
    next: () => feed.next(),
    return: () => { stopped.abort(); return feed.return(undefined) },
    throw: (err?: unknown) => { stopped.abort(); return feed.throw(err) },
    [Symbol.asyncIterator]: () => iterator,
  }
  return iterator
}

async function* follow(options: TailOptions, hooks: TailHooks, signal: AbortSignal, stopped: AbortSignal): AsyncGenerator<TailEvent, undefined> {
  const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis)
  const WebSocketClass = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
  const backoff = new Backoff(options.backoff)
  const collections = [...new Set(options.collections ?? [])]
  // One collection: the server filters. Several: the whole tenant, filtered here, so the
  // position follows what the server sent and no event of theirs is passed.
  const wanted = collections.length > 1 ? new Set(collections) : undefined
  const several = options.urls.length > 1
  let position = options.after
  let node = 0
  let refusals = 0
  let longPollSince: number | undefined
  let unchecked = collections.length > 1 ? [...collections] : []
  const status = statusReporter(options.onStatus)
  // Receiving already (a socket reopened after a pause, a long poll's next page): no news.
  const connecting = (url: string) => {
    const state = status.last?.state
    if (state !== 'live' && state !== 'long-polling') status.report({ state: 'connecting', url })
  }
  const target = (): TailTarget => ({
    base: options.urls[node % options.urls.length] as string,
    tenant: options.tenant,
    token: options.token,
    after: position === undefined ? undefined : (hooks.resumeAfter?.(position) ?? position),
    collection: collections.length === 1 ? collections[0] : undefined,
  })
  // A poll's page: its events, then its `last_lsn`, which may pass events filtered out.
  const deliver = async function* (page: TailPage): AsyncGenerator<TailEvent, void> {
    for (const raw of page.events) {
      const event = filtered(raw, wanted)
      if (event !== undefined) yield event
      position = raw.lsn
    }
    position = Math.max(position ?? 0, page.last_lsn)
  }
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason
      let verdict: Verdict | undefined
      // Several collections: each is asked for once, so a misspelt one ends the feed
      // with `unknown_collection` as the server's filter would.
      while (unchecked.length > 0 && verdict === undefined) {
        const answer = await poll(fetcher, { ...target(), collection: unchecked[0] }, { limit: 1, wait_ms: 0 }, signal, several)
        if (answer.ok) unchecked = unchecked.slice(1)
        else verdict = answer.verdict
      }
      if (longPollSince !== undefined && Date.now() - longPollSince >= upgrade_retry_ms) longPollSince = undefined
      if (verdict === undefined && longPollSince === undefined && WebSocketClass !== undefined) {
        const at = target()
        hooks.started?.('websocket', at.base)
        connecting(at.base)
        const opened = () => status.report({ state: 'live', url: at.base })
        const session = socketSession(WebSocketClass, tailUrl(at, { token: options.token }, true), signal, hooks.socketQueueMax, opened)
        let end: SocketEnd
        try {
          for (;;) {
            const step = await session.next()
            if (step.done === true) { end = step.value; break }
            const event = filtered(step.value, wanted)
            if (event !== undefined) yield event
            position = step.value.lsn
          }
        } finally {
          await session.return({ opened: false, code: 0, reason: '', paused: false })
        }
        if (end.opened) {
          refusals = 0
          backoff.reset()
          if (end.paused) continue
          verdict = closeVerdict(end.code, end.reason)
        } else {
          // The upgrade failed: refused with an answer (which a WebSocket does not show),
          // the node down, or something between that does not upgrade. A poll tells.
          hooks.started?.('poll', at.base)
          const answer = await poll(fetcher, target(), { limit: poll_limit, wait_ms: 0 }, signal, several)
          if (!answer.ok) verdict = answer.verdict
          else {
            refusals += 1
            if (refusals >= upgrade_refusals_max) longPollSince = Date.now()
            yield* deliver(answer.page)
            continue
          }
        }
      } else if (verdict === undefined) {
        const at = target()
        hooks.started?.('poll', at.base)
        // Not receiving yet: a poll that answers at once, so `long-polling` is reported
        // when the node answers, not a long poll's wait later.
        const receiving = status.last?.state === 'long-polling'
        connecting(at.base)
        const answer = await poll(fetcher, at, { limit: poll_limit, wait_ms: receiving ? long_poll_wait_ms : 0 }, signal, several)
        if (answer.ok) {
          backoff.reset()
          status.report({ state: 'long-polling', url: at.base })
          yield* deliver(answer.page)
          continue
        }
        verdict = answer.verdict
      }
      if (verdict === undefined) continue
      if (!verdict.retry) throw verdict.error
      if (verdict.next_node) node += 1
      const in_ms = Math.max(backoff.next(), verdict.wait_ms ?? 0)
      status.report({ state: 'retrying', reason: verdict.reason, in_ms })
      await sleep(in_ms, signal)
    }
  } catch (err) {
    if (stopped.aborted) return undefined
    if (signal.aborted) throw unansweredError('aborted', 'the change feed was aborted', signal.reason)
    throw err
  }
}
