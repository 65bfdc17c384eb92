// Limits of the change tail (product.md 5 "Change tail"), each named with its unit.
// moves to src/limits.ts (the project keeps every TypeScript limit there; src/cdc/ could
// not edit it when this was written).

/** Events one poll returns when the caller names no `limit`. */
export const tail_limit_default = 100

/** Most events one poll returns; a larger `limit` is lowered to this. */
export const tail_limit_max = 1000

/** Longest a long poll (`wait_ms`) waits for an event; a larger value is lowered to this. */
export const tail_wait_ms_max = 30_000

/**
 * Row bytes (stored keys and values) of the events one poll or subscription page holds
 * before it ends early, so `limit` events of large transactions cannot make a page of
 * gigabytes. A page always holds at least one event, however large.
 */
export const tail_page_bytes_max = 4 * 1024 * 1024

/** Frames one engine read returns at most (the unit of work between event-loop turns). */
export const tail_read_frames_max = 256

/**
 * Payload bytes one engine read returns at most. A single larger commit still comes
 * back alone (the engine always returns the first frame), so nothing is ever stuck.
 */
export const tail_read_bytes_max = 1024 * 1024

/**
 * Engine reads one poll makes at most. With a collection filter, or on a WAL full of
 * other tenants' commits, a poll could otherwise scan the whole retained WAL (256 MiB
 * by default) for one request; instead it returns early with `last_lsn` advanced and
 * `head_lsn` beyond it, and the next poll carries on from there.
 */
export const tail_reads_per_poll_max = 64

/**
 * How long a live subscription with nothing to read waits for the commit notifier
 * before it looks at the engine's head itself: a safety net for commits whose writer
 * forgot to call `notify`, never the normal wake-up.
 */
export const tail_idle_recheck_ms = 1000
