// The negative controls of the snapshot-isolation tests: a database whose
// first-committer-wins check is off (src/mvcc/negative-control.ts, a test-only hook).
import { Database } from '../../src/database/index.js'
import { internalsOf } from '../../src/database/internals.js'
import { disableConflictCheckForNegativeControl } from '../../src/mvcc/negative-control.js'
import type { Committer } from '../../src/txn/index.js'

/** NEGATIVE CONTROL ONLY: every write of `db` (or of a bare committer) commits, conflicting or not. */
export function withoutConflictCheck(db: Database | Committer): void {
  disableConflictCheckForNegativeControl((db instanceof Database ? internalsOf(db).committer : db).conflicts)
}
