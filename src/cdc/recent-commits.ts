// The newest durable commits, by LSN, bounded in count and bytes. A live tail at the
// head takes its next commits from here when they are contiguous, decoded once for
// every tail (recent-commit.ts); any gap (a commit made elsewhere, a payload too large
// to keep, one evicted) sends it to the WAL, which holds every commit. So this is only
// a shortcut, never a source of truth.
import { tail_recent_bytes_max, tail_recent_commit_bytes_max, tail_recent_commits_max } from './limits.js'
import { RecentCommit } from './recent-commit.js'

export class RecentCommits {
  /** Insertion order is LSN order: commits settle in LSN order. */
  readonly #commits = new Map<number, RecentCommit>()
  #bytes = 0

  /** Keeps `payload` as the durable commit `lsn` (the exact bytes given to the engine). */
  record(lsn: number, payload: Buffer): void {
    if (payload.length > tail_recent_commit_bytes_max || this.#commits.has(lsn)) return
    this.#commits.set(lsn, new RecentCommit(lsn, payload))
    this.#bytes += payload.length
    for (const [oldest, kept] of this.#commits) {
      if (this.#commits.size <= tail_recent_commits_max && this.#bytes <= tail_recent_bytes_max) break
      this.#commits.delete(oldest)
      this.#bytes -= kept.payload.length
    }
  }

  /** The payload of commit `lsn`, if kept. */
  get(lsn: number): Buffer | undefined {
    return this.#commits.get(lsn)?.payload
  }

  /** Commit `lsn` with what tails have decoded of it so far, if kept. */
  commit(lsn: number): RecentCommit | undefined {
    return this.#commits.get(lsn)
  }

  get size(): number {
    return this.#commits.size
  }
}
