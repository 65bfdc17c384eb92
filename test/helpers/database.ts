import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import { Database } from '../../src/database/index.js'
import { tempDir } from './temp-dir.js'

/** A real database in a temp dir with `source` as its only schema file; closed when the test ends. */
export async function openDatabase(t: Test, source: string, dir = tempDir(t)): Promise<{ db: Database; dir: string; schemaFile: string }> {
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, source)
  const db = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => db.close())
  return { db, dir, schemaFile }
}
