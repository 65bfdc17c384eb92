import { EngineBackup } from './backup.js'
import { decodeCommit, type CommitRecord, type Op } from './commit-codec.js'
import { CommitQueue } from './commit-queue.js'
import { encodeCommit } from './commit-writer.js'
import { EngineError, mapAsync, mapSync } from './engine-error.js'
import { native, type NativeBackup, type NativeEngine } from './native.js'
import { Snapshot } from './snapshot.js'
import { backup_elsewhere_poll_ms } from '../limits.js'

export interface EngineOptions {
  /** Page cache budget: bytes of memory its decoded nodes hold, not their bytes on disk (default 64 MiB). */
  cacheBytes?: number
  /** Checkpoint once this many WAL bytes follow the last one (default 64 MiB). */
  checkpointWalBytes?: number
  /** WAL bytes kept for the change feed after checkpoint (default 256 MiB). */
  tailRetentionBytes?: number
  /**
   * Open without changing a byte of the directory (`tenantdb verify`): a shared lock
   * (fails with `locked` while a server runs), recovery in memory only, corruption
   * reports kept in memory; commits and checkpoints fail with `read_only`.
   */
  readOnly?: boolean
  /**
   * Open in follower mode (docs/replication.md, "Followers"): local commits fail with
   * `not_primary`, and a primary's frames are applied with `applyFrame`.
   */
  follower?: boolean
  /**
   * Recount the space map from the trees instead of loading it (`tenantdb repair`,
   * docs/operations.md "Repairing the space map"); the next checkpoint writes it.
   */
  rebuildSpace?: boolean
}

export interface CloseReport {
  /** Why the final checkpoint was skipped (a full disk), or null. Nothing is lost. */
  checkpoint_skipped: string | null
}

export interface CorruptionReport {
  id: string
  file: string
  page: number | null
  kind: string
  count: number
  first_seen_ms: number
  last_seen_ms: number
}

/** The page file's slots by state (docs/format.md, "Space map"). */
export interface SpaceStats {
  /** Slots in use by some version (the head, a pin, a fork, the space map itself). */
  live: number
  /** Slots a checkpoint may write now. */
  free: number
  /** Unreachable slots held back for the older meta record or a reader in flight. */
  pending: number
  /** Unreachable slots whose own references a later checkpoint releases. */
  releasing: number
}

export interface CompactReport {
  bytes_before: number
  bytes_after: number
  /** Live pages copied to lower slots. */
  pages_moved: number
  page_count: number
}

/**
 * A step of long work and how far it has come: `done` of about `total` (an estimate
 * where the work cannot know it up front, so `done` may pass it), counted in `unit`.
 */
export interface WorkProgress {
  step: 'verify_pages' | 'verify_space' | 'verify_wal' | 'compact_trees' | 'write_pages' | 'move_pages'
  unit: 'pages' | 'bytes' | 'entries'
  done: number
  total: number
}

export interface CheckpointReport {
  checkpoint_lsn: number
  pages_written: number
  pages_released: number
  /** The allocator tip after it (it comes down when the free tail is cut off). */
  page_count: number
}

export interface EngineStats {
  /** Allocator tip: pages 0..page_count exist in the page file. */
  page_count: number
  page_file_bytes: number
  wal_bytes: number
  /** LSN of the newest durable commit. */
  current_lsn: number
  checkpoint_lsn: number
  /** WAL bytes after the checkpoint: what recovery would replay. */
  lag_bytes: number
  /** Oldest LSN the WAL still holds (the change feed can resume after oldest_lsn - 1). */
  oldest_lsn: number
  replayed_frames: number
  torn_bytes: number
  open_micros: number
  fsync: {
    count: number
    max_micros: number
    sum_micros: number
    buckets: Array<{ le_micros: number | null; count: number }>
  }
  /** What the checkpoints since open did (in place: over slots they released themselves). */
  checkpoints: { count: number; in_place: number; pages_written: number; pages_released: number; max_micros: number }
  /** Page cache hits and misses; `memory_reads`: node reads of what is written since the last checkpoint, which no cache serves. */
  cache: { hits: number; misses: number; bytes: number; memory_reads: number }
  space: SpaceStats
  corruption: CorruptionReport[]
  corruption_total: number
  /** Absolute path of the open database directory. */
  db_dir: string
}

export interface Frame {
  lsn: number
  commit: CommitRecord
}

/** What another thread attaches to a shared engine by (`Engine.share`, `Engine.attach`); `postMessage` carries it. */
export interface SharedEngine {
  id: number
  settles: SharedArrayBuffer
}

/** A typed handle on an open database directory (the storage core). */
export class Engine {
  readonly #native: NativeEngine
  readonly #commits: CommitQueue
  /**
   * The newest durable version, reused until a commit of this engine settles: only
   * those commits change it (checkpoint and compaction publish the same contents),
   * and the database directory is locked to this process. Creating a snapshot object
   * costs more than a point read, so queries share one while nothing was committed.
   */
  #head: Snapshot | undefined
  /** When the head's generation was last compared with the binding's (Date.now()). */
  #generation_checked_ms = 0
  /**
   * Leases of snapshots (`lease`), each held across awaits. A snapshot keeps the page
   * slots its version reaches from being reused until it is released (docs/format.md,
   * "Space map"), so one nobody leases is released as soon as it stops being the head,
   * instead of whenever the garbage collector finds it.
   */
  readonly #leases = new Map<Snapshot, number>()
  /** Backups in progress, and those being begun (counted before the storage core sees them). */
  readonly #backups = new Set<EngineBackup>()
  #beginning = 0
  /** Settles when no backup is in progress or being begun. */
  #idle: { promise: Promise<void>; resolve: () => void } | undefined
  /**
   * Attached from another thread (`attach`): its head moves with the opener's commits,
   * which never settle here, so each `snapshot()` compares the opener's count of
   * settled commit batches with the one its head was taken at; and it closes by
   * letting go (`detach`), never the database itself.
   */
  readonly #attached: boolean
  /** What other threads attach by, while shared (`share`). */
  #shared: SharedEngine | null = null
  /**
   * Batches of commits settled by the opener, counted before anyone awaiting them runs
   * (in memory every thread reads once shared); the count the head was taken at.
   */
  #settles: Int32Array<ArrayBufferLike>
  #head_settles = 0

  private constructor(handle: NativeEngine, commits: CommitQueue, settles: Int32Array<ArrayBufferLike> | null = null) {
    this.#native = handle
    this.#commits = commits
    this.#attached = settles !== null
    this.#settles = settles ?? new Int32Array(1)
    commits.push = (first, payloads) => {
      if (payloads.length === 1) handle.commit(first, payloads[0] as Buffer)
      else handle.commitBatch(first, payloads)
    }
    commits.pushSync = (id, payload) => handle.commitSync(id, payload)
    // Forget the head before anyone awaiting a commit runs, so they read their write
    // (on this thread, and through the count on every thread attached).
    commits.onSettle = () => {
      Atomics.add(this.#settles, 0, 1)
      this.#retireHead()
    }
  }

  /** Opens (creating if needed) `dir`, takes its exclusive lock and recovers. */
  static async open(dir: string, options: EngineOptions = {}): Promise<Engine> {
    const commits = new CommitQueue()
    return new Engine(await mapAsync(mapSync(() => native.open(dir, options, commits.settle))), commits)
  }

  /**
   * The database another thread of this process opened and shared as `id` (`share`),
   * read through this thread's own engine: the same page cache, versions and WAL
   * (docs/architecture.md, "Every core"). It reads; commits, checkpoints, compaction
   * and close stay with the opener (they fail with `read_only` here).
   */
  static attach(shared: SharedEngine): Engine {
    const commits = new CommitQueue()
    return new Engine(mapSync(() => native.attach(shared.id, commits.settle)), commits, new Int32Array(shared.settles))
  }

  /** Lets other threads attach to this database (`attach`): what they attach by. */
  share(): SharedEngine {
    if (this.#shared === null) {
      const settles = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))
      settles[0] = this.#settles[0] as number
      this.#settles = settles
      this.#shared = { id: mapSync(() => this.#native.share()), settles: settles.buffer as SharedArrayBuffer }
    }
    return this.#shared
  }

  /**
   * Commits the operations atomically; resolves with the LSN once durable. Commits are
   * applied in the order of the calls: the storage core is given those of one turn of
   * the event loop together, at its end, so they share a fsync (commit-queue.ts; the
   * MVCC layer validates and queues in one synchronous step).
   */
  commit(ops: Op[], meta: Uint8Array = new Uint8Array(0)): Promise<number> {
    return this.commitPayload(encodeCommit({ meta, ops }))
  }

  /**
   * `commit` of a payload already in the commit format (a CommitWriter's `finish`),
   * which nothing writes to afterwards. The storage core checks it whole before
   * queuing it (a malformed payload, or one over a limit, rejects with
   * `invalid_argument` and changes nothing) and logs these very bytes as the commit's
   * WAL frame (docs/format.md, "Commit payload").
   */
  commitPayload(payload: Buffer): Promise<number> {
    return this.#commits.add(payload)
  }

  /**
   * `commitPayload` on this thread: writes and syncs the commit (and those queued
   * before it, first) before returning its LSN, blocking the thread for the write and
   * its fdatasync instead of handing the commit to the storage core's sync thread and
   * back (docs/architecture.md, "Synchronous commits"). `delivered` runs once its
   * completion reaches this thread, in LSN order with every other commit's. Throws an
   * EngineError as `commitPayload` rejects.
   */
  commitPayloadSync(payload: Buffer, delivered: (lsn: number) => void): number {
    return this.#commits.addSync(payload, delivered)
  }

  /**
   * Follower mode only: applies frame `lsn` of a primary (its payload as the primary's
   * WAL holds it) as recovery applies frames, and writes it to this WAL; resolves with
   * `lsn` once durable. Frames queued in one synchronous step share a WAL batch. One
   * whose LSN does not follow the head when applied rejects with `invalid_argument`,
   * having changed nothing.
   */
  applyFrame(lsn: number, payload: Buffer): Promise<number> {
    return this.#commits.now((id) => this.#native.applyFrame(id, lsn, payload))
  }

  /**
   * Follower mode (local commits refused, frames applied) or primary mode. Everything
   * queued before the switch is applied before anything queued after it.
   */
  setFollower(follower: boolean): void {
    this.#commits.flush()
    mapSync(() => this.#native.setFollower(follower))
  }

  /**
   * The newest durable version, for reading within one synchronous stretch of code:
   * it may be released once a later commit settles. Code that reads across an await
   * takes a `lease` instead.
   */
  snapshot(): Snapshot {
    // A head taken before the last checkpoint holds that checkpoint's freed slots back
    // (docs/format.md, "Space map"): it is replaced, with the same contents, by one of
    // the current generation. Asked of the binding at most once a millisecond: a call
    // per read was a twentieth of a prepared point read (docs/performance.md, P3).
    // Attached: the opener's commits move the head without settling here.
    if (this.#attached && this.#head !== undefined && Atomics.load(this.#settles, 0) !== this.#head_settles) this.#retireHead()
    const now = Date.now()
    if (this.#head !== undefined && now !== this.#generation_checked_ms) {
      this.#generation_checked_ms = now
      if (this.#head.epoch !== mapSync(() => this.#native.generation)) this.#retireHead()
    }
    if (this.#head === undefined) {
      // Read before the snapshot is taken: a batch settling in between makes the next call take another.
      this.#head_settles = Atomics.load(this.#settles, 0)
      this.#head = new Snapshot(mapSync(() => this.#native.snapshot()))
    }
    return this.#head
  }

  /**
   * Attached: the opener committed (a worker hears it after the fact), so the head is
   * let go now rather than at the next read. A head kept by a thread that reads nothing
   * for a while would hold back every slot a checkpoint frees after its version.
   */
  headMoved(): void {
    this.#retireHead()
  }

  /** Forgets the head snapshot, releasing it at once unless a lease holds it. */
  #retireHead(): void {
    const old = this.#head
    this.#head = undefined
    if (old !== undefined && !this.#leases.has(old)) old.release()
  }

  /** The newest durable version, readable until `unlease`d (once per lease). */
  lease(): Snapshot {
    const snapshot = this.snapshot()
    this.#leases.set(snapshot, (this.#leases.get(snapshot) ?? 0) + 1)
    return snapshot
  }

  unlease(snapshot: Snapshot): void {
    const count = this.#leases.get(snapshot)
    if (count === undefined) throw new Error('unlease of a snapshot that is not leased')
    if (count > 1) {
      this.#leases.set(snapshot, count - 1)
      return
    }
    this.#leases.delete(snapshot)
    if (snapshot !== this.#head) snapshot.release()
  }

  /**
   * Begins an online backup (docs/operations.md, "Backup and restore"): waits for a
   * running checkpoint or compaction, then keeps them out until the backup is ended
   * (`checkpoint` and `compactSpace` wait for it meanwhile). Commits go on. Whoever
   * begins one ends it; `close` ends any left.
   */
  async beginBackup(): Promise<EngineBackup> {
    this.#beginning++
    let handle: NativeBackup
    try {
      handle = await mapAsync(this.#native.beginBackup())
    } finally {
      this.#beginning--
    }
    const backup = new EngineBackup(handle, () => {
      this.#backups.delete(backup)
      this.#wakeIfIdle()
    })
    this.#backups.add(backup)
    this.#wakeIfIdle()
    return backup
  }

  #busy(): boolean {
    return this.#beginning > 0 || this.#backups.size > 0
  }

  #wakeIfIdle(): void {
    if (this.#busy() || this.#idle === undefined) return
    this.#idle.resolve()
    this.#idle = undefined
  }

  #untilIdle(): Promise<void> {
    if (!this.#busy()) return Promise.resolve()
    if (this.#idle === undefined) {
      let resolve!: () => void
      const promise = new Promise<void>((r) => { resolve = r })
      this.#idle = { promise, resolve }
    }
    return this.#idle.promise
  }

  /**
   * Runs a checkpoint or compaction once no backup is in progress. The storage core
   * refuses them meanwhile (`backup_in_progress`) instead of waiting, since a wait
   * there would hold a thread-pool thread the backup's own reads need; so the wait is
   * here, off every thread. A backup begun after the request, which the core saw
   * first, is waited for the same way.
   */
  async #afterBackups<T>(run: () => Promise<T>): Promise<T> {
    for (;;) {
      await this.#untilIdle()
      try {
        return await run()
      } catch (err) {
        if (!(err instanceof EngineError && err.code === 'backup_in_progress')) throw err
        // A turn of the event loop before trying again, whatever the count says; a
        // backup this engine does not know of (another thread's, through an attached
        // engine) is waited out a few milliseconds at a time instead of spinning.
        await new Promise((resolve) => this.#busy() || this.#shared === null ? setImmediate(resolve) : setTimeout(resolve, backup_elsewhere_poll_ms))
      }
    }
  }

  checkpoint(): Promise<CheckpointReport> {
    return this.#afterBackups(() => mapAsync(this.#native.checkpoint())).then((c) => ({
      checkpoint_lsn: c.checkpointLsn,
      pages_written: c.pagesWritten,
      pages_released: c.pagesReleased,
      page_count: c.pageCount,
    }))
  }

  /**
   * Releases what no version reaches and moves live pages down the page file so its
   * free tail is cut off. Slots a reader still holds stay until it finishes.
   */
  compactSpace(): Promise<CompactReport> {
    return this.#afterBackups(() => mapAsync(this.#native.compactSpace())).then((c) => ({
      bytes_before: c.bytesBefore,
      bytes_after: c.bytesAfter,
      pages_moved: c.pagesMoved,
      page_count: c.pageCount,
    }))
  }

  /**
   * Walks every reachable page and WAL frame, and recounts the space map; `problems`
   * is empty when clean.
   */
  verify(): Promise<{ pages: number; entries: number; space: SpaceStats; problems: string[] }> {
    return mapAsync(this.#native.verify())
  }

  /**
   * The long work running now and how far it has come, or null: read from atomics,
   * never waiting, so it can be polled while a verify, a compaction or a checkpoint
   * runs on the thread pool (docs/architecture.md, "Progress").
   */
  progress(): WorkProgress | null {
    return (mapSync(() => this.#native.progress()) ?? null) as WorkProgress | null
  }

  /**
   * Why the engine stopped writing, or null while it writes: a failed write or fsync,
   * or a panic the binding caught (an `internal` error; docs/architecture.md, "The
   * binding"). Once stopped, commits, checkpoints and compaction fail with
   * `fail_stopped` until the directory is reopened; reads go on.
   */
  failStopped(): string | null {
    return mapSync(() => this.#native.failStopped())
  }

  /** Committed transactions with LSN > `after`, in order, in one bounded batch. */
  async readFrames(after: number, framesMax: number, bytesMax: number): Promise<Frame[]> {
    const frames = await this.readFramePayloads(after, framesMax, bytesMax)
    return frames.map(({ lsn, payload }) => ({ lsn, commit: decodeCommit(payload) }))
  }

  /** `readFrames` undecoded: each payload as the WAL frame holds it. */
  async readFramePayloads(after: number, framesMax: number, bytesMax: number): Promise<Array<{ lsn: number; payload: Buffer }>> {
    const batch = await mapAsync(this.#native.readFrames(after, framesMax, bytesMax))
    return batch.lsns.map((lsn, i) => ({ lsn, payload: batch.payloads[i] as Buffer }))
  }

  /** LSN of the newest durable commit (`stats().current_lsn`), read from memory: cheap. */
  headLsn(): number {
    return mapSync(() => this.#native.headLsn())
  }

  /**
   * Oldest LSN the WAL still holds (`stats().oldest_lsn`), read from memory: cheap.
   * The change feed can resume after `oldestLsn() - 1`.
   */
  oldestLsn(): number {
    return mapSync(() => this.#native.oldestLsn())
  }

  stats(): EngineStats {
    const s = mapSync(() => this.#native.stats())
    return {
      page_count: s.pageCount,
      page_file_bytes: s.pageFileBytes,
      wal_bytes: s.walBytes,
      current_lsn: s.currentLsn,
      checkpoint_lsn: s.checkpointLsn,
      lag_bytes: s.lagBytes,
      oldest_lsn: s.oldestLsn,
      replayed_frames: s.replayedFrames,
      torn_bytes: s.tornBytes,
      open_micros: s.openMicros,
      fsync: {
        count: s.fsync.count,
        max_micros: s.fsync.maxMicros,
        sum_micros: s.fsync.sumMicros,
        buckets: s.fsync.buckets.map((b) => ({ le_micros: b.leMicros ?? null, count: b.count })),
      },
      checkpoints: {
        count: s.checkpoints.count,
        in_place: s.checkpoints.inPlace,
        pages_written: s.checkpoints.pagesWritten,
        pages_released: s.checkpoints.pagesReleased,
        max_micros: s.checkpoints.maxMicros,
      },
      cache: { hits: s.cacheHits, misses: s.cacheMisses, bytes: s.cacheBytes, memory_reads: s.cacheMemoryReads },
      space: { live: s.space.live, free: s.space.free, pending: s.space.pending, releasing: s.space.releasing },
      corruption: s.corruption.map((r) => ({
        id: r.id,
        file: r.file,
        page: r.page ?? null,
        kind: r.kind,
        count: r.count,
        first_seen_ms: r.firstSeenMs,
        last_seen_ms: r.lastSeenMs,
      })),
      corruption_total: s.corruptionTotal,
      db_dir: s.dbDir,
    }
  }

  /**
   * Completes queued commits, checkpoints and releases the lock. Safe to call twice.
   * Settles after every commit queued before it has settled. On a full disk the
   * checkpoint is skipped (`checkpoint_skipped`), which is no failure: every
   * acknowledged commit is in the WAL and the next open replays it. Backups still
   * in progress are ended first.
   */
  async close(): Promise<CloseReport> {
    if (this.#attached) {
      for (const backup of [...this.#backups]) backup.end()
      this.#retireHead()
      mapSync(() => this.#native.detach())
      return { checkpoint_skipped: null }
    }
    if (this.#shared !== null) this.#native.unshare(this.#shared.id)
    // A backup left open would make close skip its checkpoint; its later reads fail.
    for (const backup of [...this.#backups]) backup.end()
    // Commits made this turn are queued before the close, as they were called before it.
    this.#commits.flush()
    try {
      const info = await mapAsync(this.#native.close())
      return { checkpoint_skipped: info.checkpointSkipped ?? null }
    } finally {
      await this.#commits.drained()
    }
  }
}
