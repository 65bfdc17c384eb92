// tenantdb as the workloads use it: the embedding API over a fresh directory with the
// kv schema, exactly as an embedder would open it.
import { join } from 'node:path'
import { Database, type OpenOptions } from '../../src/database/index.js'
import { writeSchema, type Row } from './data.js'

export async function openKv(dir: string, options: Omit<OpenOptions, 'schema'> = {}): Promise<Database> {
  return Database.open(join(dir, 'db'), { ...options, schema: [writeSchema(dir)] })
}

/** Inserts rows in atomic blocks of `chunk` rows. */
export async function loadRows(db: Database, make: (from: number, count: number) => Row[], total: number, chunk = 100_000, tenant = 'default'): Promise<void> {
  for (let from = 0; from < total; from += chunk) {
    await db.tenant(tenant).query('insert kv $rows', { rows: make(from, Math.min(chunk, total - from)) })
  }
}
