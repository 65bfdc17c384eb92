// Test and benchmark access to an open database's parts (parts.ts): the engine for a
// checkpoint or a verify, the committer, the notifier. Deliberately not exported from
// src/database/index.ts or the package: the embedding API is Database's and Tenant's
// methods, and no route or CLI command imports this file (test/import-graph.test.ts).
import type { DatabaseParts } from './parts.js'

const parts = new WeakMap<object, DatabaseParts>()

/** Called by Database's constructor. */
export function registerParts(db: object, of: DatabaseParts): void {
  parts.set(db, of)
}

/** The parts of an open database. */
export function internalsOf(db: object): DatabaseParts {
  const found = parts.get(db)
  if (found === undefined) throw new Error('not a Database')
  return found
}
