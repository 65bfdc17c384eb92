// First-committer-wins under snapshot isolation. Every write transaction is validated
// when it commits: if a transaction its snapshot does not contain (committed after the
// snapshot was taken, or accepted but not yet durable) wrote any key this one writes,
// or changed something this one depends on (its tenant's state), this one fails with
// a conflict and nothing of it is written. Validation and queuing happen in one
// synchronous step of the event loop, so two validations never interleave, and the
// engine applies commits in the order they were queued.
//
// A signal key (`signalKey`) is written by many transactions without their
// conflicting with one another; only a transaction that depends on it (`reads`)
// conflicts with them. Taking snapshots of one tenant signals "the tenant's set of
// pins changed", which a delete of that tenant depends on, while two snapshots of it
// do not conflict.
import { CodedError } from '../coded-error.js'
import { conflictCheckDisabled } from './negative-control.js'

/**
 * A lost first-committer-wins race. `changed` is what the winner changed (a key, or a
 * phrase naming the data) and `reason` the sentence saying so, without the `conflict: `
 * the message begins with: a layer that words its own conflict (a tenant operation's)
 * carries them over rather than reading the message. The key may name a catalog entry
 * holding a token's hash, so it is in no details: only in these sentences.
 */
export class ConflictError extends CodedError<'conflict'> {
  readonly changed: string
  readonly reason: string

  constructor(changed: string) {
    const reason = `a concurrent transaction committed first and changed ${changed}; nothing was changed, and retrying is safe`
    super('conflict', `conflict: ${reason}`)
    this.changed = changed
    this.reason = reason
  }
}

/** A key that conflicts only with transactions that depend on it, never with other writers of it. */
export const signalKey = (name: string) => `~${name}`

const isSignal = (key: string) => key.charCodeAt(0) === 0x7e // '~'

/**
 * The keys a transaction writes, or a function that builds them: a large transaction
 * with nothing to validate against (no other writer overlapped it) never builds them.
 * The function is called at most once, when another transaction is validated against
 * it or when it is validated; the transaction must not change after `accept`.
 */
export type ConflictKeys = ReadonlySet<string> | (() => ReadonlySet<string>)

interface Accepted {
  keys: ConflictKeys
  /** Set once durable; until then the transaction is in no snapshot. */
  lsn: number | undefined
}

export class ConflictLog {
  readonly #accepted: Accepted[] = []
  /** Snapshot LSNs of transactions still running, so old entries can be dropped. */
  readonly #running = new Map<number, number>()

  /** Marks a transaction running on a snapshot at `lsn`; returns its release function. */
  begin(lsn: number): () => void {
    this.#running.set(lsn, (this.#running.get(lsn) ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.#running.get(lsn) ?? 1) - 1
      if (left === 0) this.#running.delete(lsn)
      else this.#running.set(lsn, left)
      this.#prune()
    }
  }

  /**
   * Validates a transaction on a snapshot at `snapshotLsn` that writes `keys` and
   * depends on `reads`; on success records it as accepted and returns the handle to
   * report its LSN with. Throws ConflictError otherwise.
   */
  accept(snapshotLsn: number, keys: ConflictKeys, reads: ReadonlySet<string> = new Set()): Accepted {
    const entry: Accepted = { keys, lsn: undefined }
    if (!conflictCheckDisabled(this)) {
      for (const other of this.#accepted) {
        if (other.lsn !== undefined && other.lsn <= snapshotLsn) continue
        const mine = resolve(entry)
        for (const key of resolve(other)) {
          if (reads.has(key) || (mine.has(key) && !isSignal(key))) throw new ConflictError(key)
        }
      }
    }
    this.#accepted.push(entry)
    return entry
  }

  /** The transaction is durable at `lsn` (or failed: `null`, and it is forgotten). */
  settle(entry: Accepted, lsn: number | null): void {
    if (lsn === null) this.#accepted.splice(this.#accepted.indexOf(entry), 1)
    else entry.lsn = lsn
    this.#prune()
  }

  /** Entries every running snapshot already contains can never conflict again. */
  #prune(): void {
    const oldest = this.#running.size === 0 ? Infinity : Math.min(...this.#running.keys())
    let keep = 0
    for (const entry of this.#accepted) {
      if (entry.lsn === undefined || entry.lsn > oldest) this.#accepted[keep++] = entry
    }
    this.#accepted.length = keep
  }

  get size(): number {
    return this.#accepted.length
  }
}

/** An entry's keys, built on first use and kept. */
function resolve(entry: Accepted): ReadonlySet<string> {
  if (typeof entry.keys === 'function') entry.keys = entry.keys()
  return entry.keys
}
