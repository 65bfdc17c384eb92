// The transaction layer (docs/architecture.md, "Transactions"): a transaction's view of
// one snapshot with its pending writes, where a tenant's data lives, the commit header,
// and the committer every commit of the service goes through. It is the only layer
// above the engine facade that imports it (query, migration, tenants and the change
// feed sit on top of this one); the engine's types they name are exported from here.
export { TxnView } from './txn-view.js'
export { NotPrimaryError, type CommitGate } from './commit-gate.js'
export { CommitElsewhereError, commits_elsewhere } from './commit-elsewhere.js'
export { Committer, SyncCommitRefusedError, tenantStateKey, type CommitListener, type CommitObserver, type CommitOutcome, type CommitSettled } from './committer.js'
export { encodeCommitHeader, decodeCommitHeader, type CommitKind, type RestoredFrom } from './commit-header.js'
export * from './layout.js'
export { checkIndexKeySize, checkPrimaryKeySize, checkRowSize, keyTooLargeReason } from './entry-size.js'
export type { AutoIds } from './auto-ids.js'
export { decodeCommit, EngineError, lookup_absent, type Engine, type Entry, type Frame, type LookupBatch, type Op, type RangeBatchAt, type Snapshot } from '../engine/index.js'
