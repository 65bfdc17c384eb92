import { mapAsync, mapSync } from './engine-error.js'
import { native, type NativeEngine } from './native.js'

export interface EngineStats {
  /** Allocator tip: pages 0..page_count exist in the page file. */
  page_count: number
  checkpoint_lsn: number
  page_file_bytes: number
  /** Absolute path of the open database directory. */
  db_dir: string
}

/** A typed handle on an open database directory (the storage core). */
export class Engine {
  readonly #native: NativeEngine

  private constructor(handle: NativeEngine) {
    this.#native = handle
  }

  /** Opens (creating if needed) `dir` and takes its exclusive lock. */
  static async open(dir: string): Promise<Engine> {
    return new Engine(await mapAsync(native.open(dir)))
  }

  stats(): EngineStats {
    const s = mapSync(() => this.#native.stats())
    return {
      page_count: s.pageCount,
      checkpoint_lsn: s.checkpointLsn,
      page_file_bytes: s.pageFileBytes,
      db_dir: s.dbDir,
    }
  }

  get isOpen(): boolean {
    return this.#native.isOpen
  }

  /** Publishes what was written and releases the lock. Safe to call twice. */
  close(): void {
    mapSync(() => this.#native.close())
  }
}
