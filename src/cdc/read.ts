// Reading a tenant's events from the engine's WAL in bounded batches: where a read may
// start (`resolveAfter`), and one page of events from there (`readEvents`). The poll,
// the long poll and the live subscription are all loops over these two.
import { EngineError, type Engine, type Frame } from '../txn/index.js'
import { LsnExpiredError, TailRequestError } from './errors.js'
import { decodeEvent, type TailEvent } from './event.js'
import { rowBytes, type RecentCommit } from './recent-commit.js'
import type { RecentCommits } from './recent-commits.js'
import { tail_page_bytes_max, tail_read_bytes_max, tail_read_frames_max, tail_reads_per_poll_max } from './limits.js'

export interface EventsRead {
  events: TailEvent[]
  /** The last LSN examined: pass it as `after` next (it moves past filtered-out frames too). */
  last_lsn: number
  /**
   * The read stopped before a durable commit that `recent` does not hold yet and that
   * was not announced yet (given `announced`): its announcement, with its payload, is
   * on its way.
   */
  unannounced?: true
}

/**
 * The LSN to read after. A given `after` must be an LSN this database reached (one
 * beyond its newest commit means a different or restored directory, whose history the
 * caller has not seen: refused rather than silently skipping commits up to it) and must
 * still be retained. Absent, it is just before the oldest frame the WAL still holds.
 */
export function resolveAfter(engine: Engine, after?: number): number {
  if (after !== undefined && (!Number.isSafeInteger(after) || after < 0)) {
    throw new TailRequestError(`after must be a non-negative integer LSN, not ${String(after)}`)
  }
  const oldest_lsn = engine.oldestLsn()
  const current_lsn = engine.headLsn()
  // The engine may resume after oldest_lsn - 1: the first retained frame is the next one.
  const earliest = Math.max(0, oldest_lsn - 1)
  if (after === undefined) return Math.min(earliest, current_lsn)
  if (after > current_lsn) throw new TailRequestError(`after ${after} is beyond the newest commit of this database (LSN ${current_lsn})`)
  if (after < earliest) throw new LsnExpiredError(after, oldest_lsn)
  return after
}

/**
 * Events of `tenant` (optionally one collection) after `after`, until `limit` events,
 * `tail_page_bytes_max` bytes of them, the durable head, or `tail_reads_per_poll_max`
 * engine reads, whichever comes first. Memory is one engine batch plus the events
 * kept. Throws LsnExpiredError when the frames right after `after` were deleted by
 * retention.
 */
export async function readEvents(
  engine: Engine,
  tenant: string,
  after: number,
  collection: string | undefined,
  limit: number,
  recent?: RecentCommits,
  announced?: number,
): Promise<EventsRead> {
  const events: TailEvent[] = []
  let bytes = 0
  let last = after
  for (let reads = 0; reads < tail_reads_per_poll_max; reads += 1) {
    let kept: RecentCommit[] | null
    let frames: Frame[] = []
    try {
      kept = recentCommits(recent, last)
      // At the durable head nothing newer exists: no WAL read (a thread-pool round trip
      // that would find nothing, once per wake-up of a live tail).
      if (kept === null && last >= engine.headLsn()) break
      // Durable but not announced yet (the engine publishes a batch before its
      // completions reach JavaScript): the caller may wait for it rather than read the WAL.
      if (kept === null && announced !== undefined && last >= announced) return { events, last_lsn: last, unannounced: true }
      if (kept === null) frames = await readBatch(engine, last)
    } catch (err) {
      // Retention overtook this read between two batches: hand back the progress made;
      // the next read from `last` reports the expiry.
      if (err instanceof LsnExpiredError && last > after) break
      throw err
    }
    if (kept !== null) {
      // Kept commits: decoded, and their events made, once for every tail (recent-commit.ts).
      for (const commit of kept) {
        last = commit.lsn
        const event = commit.event(tenant, collection)
        if (event === null) continue
        events.push(event)
        bytes += commit.rowBytes
        if (events.length >= limit || bytes >= tail_page_bytes_max) return { events, last_lsn: last }
      }
      continue
    }
    if (frames.length === 0) break
    for (const frame of frames) {
      last = frame.lsn
      const event = decodeEvent(frame, tenant, collection)
      if (event === null) continue
      events.push(event)
      bytes += rowBytes(frame)
      if (events.length >= limit || bytes >= tail_page_bytes_max) return { events, last_lsn: last }
    }
  }
  return { events, last_lsn: last }
}

/**
 * The commits right after `after` that `recent` holds, contiguous, at most one engine
 * read's worth; null when it does not hold the next one (read the WAL instead).
 */
function recentCommits(recent: RecentCommits | undefined, after: number): RecentCommit[] | null {
  if (recent === undefined) return null
  const commits: RecentCommit[] = []
  let bytes = 0
  for (let lsn = after + 1; commits.length < tail_read_frames_max && bytes < tail_read_bytes_max; lsn += 1) {
    const commit = recent.commit(lsn)
    if (commit === undefined) break
    commits.push(commit)
    bytes += commit.payload.length
  }
  return commits.length === 0 ? null : commits
}

async function readBatch(engine: Engine, after: number): Promise<Frame[]> {
  try {
    return await engine.readFrames(after, tail_read_frames_max, tail_read_bytes_max)
  } catch (err) {
    // The engine refuses (invalid_argument) to read after frames retention deleted, so
    // a reader never skips history unknowingly; anything else is not ours to reword.
    if (err instanceof EngineError && err.code === 'invalid_argument') {
      const oldest_lsn = engine.oldestLsn()
      if (after < oldest_lsn - 1) throw new LsnExpiredError(after, oldest_lsn)
    }
    throw err
  }
}
