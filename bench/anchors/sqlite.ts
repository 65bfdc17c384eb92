// better-sqlite3 as the anchor: WAL mode, `synchronous` FULL or NORMAL (labelled),
// prepared statements, one transaction for bulk work; a WITHOUT ROWID table keyed by
// the same 24-byte keys with the same 150-byte values.
import Sqlite from 'better-sqlite3'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import type { Row } from '../harness/data.js'

export type Synchronous = 'FULL' | 'NORMAL'

export class SqliteKv {
  readonly #db: Sqlite.Database
  readonly #file: string
  readonly #insert: Sqlite.Statement<[string, string]>
  readonly #upsert: Sqlite.Statement<[string, string]>
  readonly #get: Sqlite.Statement<[string], { v: string }>
  readonly #rangeFrom: Sqlite.Statement<[string, number], { k: string; v: string }>
  readonly #all: Sqlite.Statement<[], { k: string; v: string }>

  constructor(dir: string, synchronous: Synchronous) {
    this.#file = join(dir, 'kv.sqlite')
    this.#db = new Sqlite(this.#file)
    this.#db.pragma('journal_mode = WAL')
    this.#db.pragma(`synchronous = ${synchronous}`)
    this.#db.exec('CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID')
    this.#insert = this.#db.prepare('INSERT INTO kv (k, v) VALUES (?, ?)')
    this.#upsert = this.#db.prepare('INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)')
    this.#get = this.#db.prepare('SELECT v FROM kv WHERE k = ?')
    this.#rangeFrom = this.#db.prepare('SELECT k, v FROM kv WHERE k >= ? ORDER BY k LIMIT ?')
    this.#all = this.#db.prepare('SELECT k, v FROM kv ORDER BY k')
  }

  /** One row in its own (durable, per `synchronous`) transaction. */
  insert(row: Row): void {
    this.#insert.run(row.k, row.v)
  }

  /** Every row in one transaction. */
  insertMany(rows: readonly Row[], replace = false): void {
    const statement = replace ? this.#upsert : this.#insert
    this.#db.transaction(() => {
      for (const row of rows) statement.run(row.k, row.v)
    })()
  }

  get(k: string): string | undefined {
    return this.#get.get(k)?.v
  }

  /** Rows from `k` on, at most `limit`, iterated; returns how many. */
  rangeFrom(k: string, limit: number): number {
    let n = 0
    for (const row of this.#rangeFrom.iterate(k, limit)) if (row.v.length > 0) n += 1
    return n
  }

  /** Every row, iterated; returns how many. */
  scanAll(): number {
    let n = 0
    for (const row of this.#all.iterate()) if (row.v.length > 0) n += 1
    return n
  }

  /**
   * Bytes of the database file itself, after its WAL was checkpointed into it and
   * truncated (so the file holds everything, and the WAL file nothing).
   */
  fileBytes(): number {
    this.#db.pragma('wal_checkpoint(TRUNCATE)')
    return statSync(this.#file).size
  }

  /** SQLite's compaction: rebuilds the file without free pages. */
  vacuum(): void {
    this.#db.exec('VACUUM')
  }

  close(): void {
    this.#db.close()
  }
}
