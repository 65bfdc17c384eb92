// The live change tail for in-process consumers (the WebSocket route, `tenant.subscribe`):
// the backlog after `after`, then each new event as it commits, in LSN order, each
// exactly once. It pulls: one page at a time from the WAL, the next only after the
// consumer's handler finished the last event (awaiting it when it returns a promise),
// so memory is one page however far behind the consumer is, and a slow consumer slows
// only itself. Tails at the head share the work of each commit (recent-commit.ts). A
// consumer so slow that retention deletes its next frames ends with LsnExpiredError,
// and resumes from `last_lsn` with a poll or a new subscription.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Engine } from '../txn/index.js'
import { LsnExpiredError } from './errors.js'
import type { TailEvent } from './event.js'
import type { CommitNotifier } from './notifier.js'
import { tail_notice_wait_ms } from './limits.js'
import { tailLimit } from './poll.js'
import { readEvents, resolveAfter, type EventsRead } from './read.js'

export interface SubscribeFilter {
  /** Exclusive: events with LSN > after. Absent: from the oldest retained event. */
  after?: number | undefined
  collection?: string | undefined
}

export interface SubscribeOptions {
  /** Events read from the WAL per page (default and cap as a poll's `limit`). */
  batch_events?: number | undefined
  /** Closes the subscription when aborted. */
  signal?: AbortSignal | undefined
}

/**
 * Called with each event in turn. The event may be the very object other subscriptions
 * of the same tenant and collection are given (recent-commit.ts): read it, never modify it.
 */
export type EventHandler = (event: TailEvent) => void | Promise<void>

export interface Subscription {
  /**
   * Where a new subscription or poll should resume (`after`): the LSN of the last event
   * the handler finished, or of the last frame skipped after it. An event whose
   * handler was still running at close is not counted, so it comes again on resume.
   */
  readonly last_lsn: number
  /**
   * Settles when the subscription ends: resolves after `close()` (or the signal),
   * rejects with what ended it otherwise: LsnExpiredError, an engine error (closed, say),
   * or what the handler threw. Ignoring it is safe (never an unhandled rejection).
   */
  readonly done: Promise<void>
  /**
   * Stops delivery; resolves once no handler runs any more. Safe to call twice. From
   * inside the handler, call it without awaiting: it resolves only after that handler returns.
   */
  close(): Promise<void>
}

/**
 * Starts delivering `tenant`'s events to `onEvent`. Throws at once (TailRequestError,
 * LsnExpiredError) when `after` is unusable, so a caller can refuse before it commits
 * to a stream (the WebSocket route: before the upgrade).
 */
export function subscribe(
  engine: Engine,
  notifier: CommitNotifier,
  tenant: string,
  filter: SubscribeFilter,
  onEvent: EventHandler,
  options: SubscribeOptions = {},
): Subscription {
  return new LiveTail(engine, notifier, tenant, filter, onEvent, options)
}

class LiveTail implements Subscription {
  readonly done: Promise<void>
  readonly #stop = new AbortController()
  #last: number
  /** Started without `after` and delivered nothing yet: an expiry just moves the start. */
  #fromOldest: boolean

  constructor(
    private readonly engine: Engine,
    private readonly notifier: CommitNotifier,
    private readonly tenant: string,
    private readonly filter: SubscribeFilter,
    private readonly onEvent: EventHandler,
    options: SubscribeOptions,
  ) {
    this.#last = resolveAfter(engine, filter.after)
    this.#fromOldest = filter.after === undefined
    const batch = tailLimit(options.batch_events)
    const signal = options.signal
    if (signal !== undefined) {
      if (signal.aborted) this.#stop.abort()
      else signal.addEventListener('abort', () => this.#stop.abort(), { once: true, signal: this.#stop.signal })
    }
    this.done = this.#run(batch).finally(() => this.#stop.abort())
    this.done.catch(() => {})
  }

  get last_lsn(): number {
    return this.#last
  }

  close(): Promise<void> {
    this.#stop.abort()
    return this.done.catch(() => {})
  }

  get #closed(): boolean {
    return this.#stop.signal.aborted
  }

  async #run(batch: number): Promise<void> {
    // Whether to wait for the announcement of a durable commit not announced yet (see
    // readEvents) rather than read it from the WAL; not again right after such a wait
    // timed out (a commit made past the committer is never announced).
    let patient = true
    while (!this.#closed) {
      let read: EventsRead
      try {
        read = await readEvents(this.engine, this.tenant, this.#last, this.filter.collection, batch, this.notifier.recent, patient ? this.notifier.latest_lsn : undefined)
      } catch (err) {
        if (!(err instanceof LsnExpiredError && this.#fromOldest)) throw err
        this.#last = resolveAfter(this.engine)
        continue
      }
      for (const event of read.events) {
        if (this.#closed) return
        // A handler that finished synchronously costs no turn of the microtask queue.
        const handled = this.onEvent(event)
        if (handled !== undefined) await handled
        this.#last = event.lsn
        this.#fromOldest = false
      }
      if (this.#closed) return
      this.#last = read.last_lsn
      patient = true
      if (read.unannounced === true) {
        patient = await this.notifier.waitFor(this.#last, { signal: this.#stop.signal, timeout_ms: tail_notice_wait_ms })
        // Timed out: on a busy event loop the announcement may be queued behind this very
        // timer (timers run before I/O completions in a turn of the loop); one turn more
        // lets it arrive, so the commit comes from memory, not from the WAL.
        if (!patient && !this.#closed) await yieldToLoop()
      } else if (this.#last >= this.engine.headLsn()) {
        await this.notifier.waitFor(this.#last, { signal: this.#stop.signal })
      }
    }
  }
}
