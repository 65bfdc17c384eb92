// The negative controls of the snapshot-isolation tests: a database whose
// first-committer-wins check is off (src/mvcc/negative-control.ts, a test-only hook).
import type { Database } from '../../src/database/index.js'
import type { QueryRunner } from '../../src/query/index.js'
import { disableConflictCheckForNegativeControl } from '../../src/mvcc/negative-control.js'

/** NEGATIVE CONTROL ONLY: every write of `db` (or of a bare runner) commits, conflicting or not. */
export function withoutConflictCheck(db: Database | QueryRunner): void {
  disableConflictCheckForNegativeControl('runner' in db ? db.runner.conflicts : db.conflicts)
}
