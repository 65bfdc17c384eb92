// The poll form of the change tail: one page of a tenant's events after an LSN
// (docs/api.md; the HTTP route `GET /t/:tenant/tail` and `tenant.tail()` call this).
import type { Engine } from '../txn/index.js'
import { LsnExpiredError, TailRequestError } from './errors.js'
import type { TailEvent } from './event.js'
import { tail_limit_default, tail_limit_max } from './limits.js'
import { readEvents, resolveAfter } from './read.js'

export interface TailOptions {
  /** Exclusive: events with LSN > after. Absent: from the oldest retained event. */
  after?: number | undefined
  /** Only this collection's changes; events left without changes are omitted. */
  collection?: string | undefined
  /** Most events to return (default 100; above 1000 is lowered to 1000). */
  limit?: number | undefined
}

export interface TailPage {
  events: TailEvent[]
  /** Pass as `after` next time: the last LSN examined, even one that gave no event. */
  last_lsn: number
  /** The newest durable LSN when the page was read; `last_lsn < head_lsn` means more to read. */
  head_lsn: number
}

/** Retries of a poll without `after` when retention moves the oldest frame under it. */
const from_oldest_attempts = 3

export async function pollTail(engine: Engine, tenant: string, options: TailOptions = {}): Promise<TailPage> {
  const limit = tailLimit(options.limit)
  for (let attempt = 1; ; attempt += 1) {
    const after = resolveAfter(engine, options.after)
    try {
      const read = await readEvents(engine, tenant, after, options.collection, limit)
      return { ...read, head_lsn: engine.headLsn() }
    } catch (err) {
      // "From the oldest retained" has no history to lose: start again from the new oldest.
      if (options.after === undefined && err instanceof LsnExpiredError && attempt < from_oldest_attempts) continue
      throw err
    }
  }
}

export function tailLimit(limit: number | undefined): number {
  if (limit === undefined) return tail_limit_default
  if (!Number.isSafeInteger(limit) || limit < 1) throw new TailRequestError(`limit must be a positive integer, not ${String(limit)}`)
  return Math.min(limit, tail_limit_max)
}
