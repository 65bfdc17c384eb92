// An online backup of the engine's directory (docs/operations.md, "Backup and
// restore"): the files a consistent copy needs and how many bytes of each, read in
// chunks on the thread pool. While one is open the storage core keeps checkpoints and
// compaction out (crates/storage/src/database/backup/gate.rs); `end` lets them in again, so
// whoever begins a backup ends it, also when the copy fails.
import { mapAsync, mapSync } from './engine-error.js'
import type { NativeBackup } from './native.js'

/** A file of a backup: its path in the database directory and the bytes to copy. */
export interface BackupFile {
  path: string
  bytes: number
}

export class EngineBackup {
  /** The LSN the copy holds every commit up to. */
  readonly lsn: number
  readonly files: readonly BackupFile[]
  readonly #native: NativeBackup
  readonly #onEnd: () => void
  #ended = false

  constructor(handle: NativeBackup, onEnd: () => void) {
    this.#native = handle
    this.#onEnd = onEnd
    this.lsn = mapSync(() => handle.lsn)
    this.files = mapSync(() => handle.files).map((f) => ({ path: f.path, bytes: f.bytes }))
  }

  /** Up to `length` bytes of `files[index]` from `offset`; fewer only at the end of what is copied. */
  read(index: number, offset: number, length: number): Promise<Buffer> {
    return mapAsync(this.#native.read(index, offset, length))
  }

  get ended(): boolean {
    return this.#ended
  }

  /** Ends the backup; later reads fail. Ending twice does nothing. */
  end(): void {
    if (this.#ended) return
    this.#ended = true
    try {
      mapSync(() => this.#native.end())
    } finally {
      // Let waiting checkpoints go on even when ending failed.
      this.#onEnd()
    }
  }
}
