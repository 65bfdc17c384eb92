// lmdb-js as the anchor, with its default (durable) sync: awaited single puts, puts
// with many in flight (lmdb-js batches them into one transaction per flush), and
// synchronous gets.
import { open, type RootDatabase } from 'lmdb'
import type { Row } from '../harness/data.js'

export class LmdbKv {
  readonly #db: RootDatabase<string, string>

  constructor(dir: string) {
    this.#db = open<string, string>({ path: dir, encoding: 'string' })
  }

  async put(row: Row): Promise<void> {
    await this.#db.put(row.k, row.v)
  }

  /** Every row in one transaction. */
  async putMany(rows: readonly Row[]): Promise<void> {
    await this.#db.transaction(() => {
      for (const row of rows) this.#db.put(row.k, row.v)
    })
  }

  get(k: string): string | undefined {
    return this.#db.get(k)
  }

  async close(): Promise<void> {
    await this.#db.close()
  }
}
