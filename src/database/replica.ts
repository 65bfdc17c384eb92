// The database as replication drives it (docs/replication.md): the frames of its WAL
// for a publisher, a follower's applier of a primary's frames, the gate every commit
// passes, and the switches between follower and primary. The replication layer sits
// above the embedding API and reaches the database only through this.
import type { DatabaseParts } from './parts.js'
import type { CommitGate, CommitListener } from '../txn/index.js'

export interface ReplicaFrame {
  lsn: number
  /** The commit payload, byte for byte as the WAL holds it (docs/format.md, "Commit payload"). */
  payload: Buffer
}

export class Replica {
  readonly #parts: DatabaseParts
  readonly #ensureDefaultTenant: () => Promise<void>

  constructor(parts: DatabaseParts, ensureDefaultTenant: () => Promise<void>) {
    this.#parts = parts
    this.#ensureDefaultTenant = ensureDefaultTenant
  }

  /** LSN of the newest durable commit or applied frame. */
  headLsn(): number {
    return this.#parts.engine.headLsn()
  }

  /** Oldest LSN the WAL still holds. */
  oldestLsn(): number {
    return this.#parts.engine.oldestLsn()
  }

  /** Frames with LSN > `after`, in order, as the WAL holds them, in one bounded batch. */
  frames(after: number, framesMax: number, bytesMax: number): Promise<ReplicaFrame[]> {
    return this.#parts.engine.readFramePayloads(after, framesMax, bytesMax)
  }

  /**
   * Follower mode: applies a primary's frames (consecutive, from the head's next LSN)
   * as recovery does, in one WAL batch; the change tail hears of each.
   */
  apply(frames: readonly ReplicaFrame[]): Promise<void> {
    return this.#parts.committer.applyFrames(frames)
  }

  /**
   * Tells `listener` of every durable commit and applied frame, in LSN order, with the
   * payload given to the engine; returns the unsubscribe function.
   */
  subscribe(listener: CommitListener): () => void {
    return this.#parts.committer.subscribe(listener)
  }

  /** Every commit from now on passes `gate`. */
  setGate(gate: CommitGate): void {
    const { committer, migrator } = this.#parts
    committer.setGate(gate, (tenant) => {
      migrator.forget(tenant)
      committer.autoIds.forget(tenant)
    })
  }

  /**
   * Becomes primary at the head: local commits are taken (transactions begun before
   * lose as conflicts), and the tenant `default` is made if the database has none.
   */
  async promote(): Promise<void> {
    this.#parts.committer.promote()
    this.#parts.migrator.forgetAll()
    await this.#ensureDefaultTenant()
  }

  /** Becomes a follower: local commits are refused, frames are applied. */
  demote(): void {
    this.#parts.committer.demote()
  }
}
