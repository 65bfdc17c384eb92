// `tenantdb query DIR --schema FILE` on a new directory (absent or empty) creates the
// database, as `sqlite3 new.db` does (docs/operations.md, "Querying from the command
// line"). Without a schema nothing is created: a typo must not become an empty
// database. The database is made in a sibling directory and renamed onto DIR only once
// it opened with the schema and holds its default tenant, so a bad schema file or any
// failure on the way leaves DIR as it was, never half a database.
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { Database } from '../database/index.js'
import { syncDir } from '../sync-dir.js'

/** Whether `dir` is absent, or an empty directory: where a database may be created. */
export function isNewDirectory(dir: string): boolean {
  if (!existsSync(dir)) return true
  return statSync(dir).isDirectory() && readdirSync(dir).length === 0
}

/** Creates a database in `dir` (absent or empty) with the schema files `schema`. */
export async function createDatabase(dir: string, schema: readonly string[]): Promise<void> {
  const target = resolve(dir)
  const parent = dirname(target)
  if (!existsSync(parent)) throw new Error(`cannot create a database in ${dir}: ${parent} does not exist`)
  const staging = join(parent, `.${basename(target)}.creating-${randomBytes(6).toString('hex')}`)
  try {
    // Reads and checks the schema files before it creates anything.
    const db = await Database.open(staging, { schema: [...schema] })
    await db.close()
    // Onto an absent or empty directory only: one that filled up meanwhile fails here.
    await rename(staging, target)
    await syncDir(parent)
  } catch (err) {
    await rm(staging, { recursive: true, force: true })
    throw err
  }
}
