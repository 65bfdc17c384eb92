// Test-only negative-control hook (docs/architecture.md, "Transactions"). The
// snapshot-isolation checker (test/mvcc-si-checker.test.ts, R7) must be shown to fail
// when first-committer-wins is off, or it proves nothing; this switch turns the check
// off for one conflict log. It is deliberately not exported from src/mvcc/index.ts or
// the package, and no HTTP route, CLI flag, environment variable or option reaches it:
// only test helpers import this file. (It imports nothing, so conflict-log.ts can ask
// it without an import cycle; `log` is a ConflictLog.)

const unchecked = new WeakSet<object>()

/** NEGATIVE CONTROL ONLY: `log` accepts every transaction, so lost updates and read skew become possible. */
export function disableConflictCheckForNegativeControl(log: object): void {
  unchecked.add(log)
}

/** Whether the negative-control hook turned `log`'s check off. */
export function conflictCheckDisabled(log: object): boolean {
  return unchecked.has(log)
}
