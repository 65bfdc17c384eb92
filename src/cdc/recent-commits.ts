// The newest durable commits' payloads, by LSN, bounded in count and bytes. A live
// tail at the head takes its next frames from here when they are contiguous; any gap
// (a commit made elsewhere, a payload too large to keep, one evicted) sends it to the
// WAL, which holds every commit. So this is only a shortcut, never a source of truth.
import { tail_recent_bytes_max, tail_recent_commit_bytes_max, tail_recent_commits_max } from './limits.js'

export class RecentCommits {
  /** Insertion order is LSN order: commits settle in LSN order. */
  readonly #payloads = new Map<number, Buffer>()
  #bytes = 0

  /** Keeps `payload` as the durable commit `lsn` (the exact bytes given to the engine). */
  record(lsn: number, payload: Buffer): void {
    if (payload.length > tail_recent_commit_bytes_max || this.#payloads.has(lsn)) return
    this.#payloads.set(lsn, payload)
    this.#bytes += payload.length
    for (const [oldest, kept] of this.#payloads) {
      if (this.#payloads.size <= tail_recent_commits_max && this.#bytes <= tail_recent_bytes_max) break
      this.#payloads.delete(oldest)
      this.#bytes -= kept.length
    }
  }

  get(lsn: number): Buffer | undefined {
    return this.#payloads.get(lsn)
  }

  get size(): number {
    return this.#payloads.size
  }
}
