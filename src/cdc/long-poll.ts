// The long poll (`wait_ms`, docs/api.md): a poll that, finding no event, waits for the
// next commit and reads again, until an event arrives or the time is up. A commit that
// gives no event (another tenant's, another collection's) moves `last_lsn` on and the
// wait continues, so the answer is never an event-less page while time remains.
import type { Engine } from '../txn/index.js'
import { TailRequestError } from './errors.js'
import { tail_wait_ms_max } from './limits.js'
import type { CommitNotifier } from './notifier.js'
import { pollTail, type TailOptions, type TailPage } from './poll.js'

export interface LongPollOptions extends TailOptions {
  /** Longest wait for an event, in ms (0: a plain poll; above tail_wait_ms_max is refused). */
  wait_ms?: number | undefined
  /** Ends the wait early (the client went away); the page read so far is returned. */
  signal?: AbortSignal | undefined
}

export async function longPollTail(engine: Engine, notifier: CommitNotifier, tenant: string, options: LongPollOptions = {}): Promise<TailPage> {
  const deadline = Date.now() + waitMs(options.wait_ms)
  let page = await pollTail(engine, tenant, options)
  for (;;) {
    const remaining = deadline - Date.now()
    if (page.events.length > 0 || remaining <= 0 || options.signal?.aborted === true) return page
    // Caught up: sleep until a newer commit. Not caught up (the poll stopped at its read
    // budget): read on at once.
    if (page.last_lsn >= page.head_lsn) {
      await notifier.waitFor(page.last_lsn, { timeout_ms: remaining, signal: options.signal })
    }
    page = await pollTail(engine, tenant, { ...options, after: page.last_lsn })
  }
}

export function waitMs(wait_ms: number | undefined): number {
  if (wait_ms === undefined) return 0
  if (!Number.isSafeInteger(wait_ms) || wait_ms < 0) throw new TailRequestError(`wait_ms must be a non-negative integer, not ${String(wait_ms)}`)
  // Refused, not lowered: a caller who asks for a longer wait learns the limit (the
  // HTTP route's schema refuses it in the same words).
  if (wait_ms > tail_wait_ms_max) throw new TailRequestError(`wait_ms may be at most ${tail_wait_ms_max}, got ${wait_ms}`)
  return wait_ms
}
