// The header every commit of the service carries (the engine's opaque commit meta),
// read back by the change feed (src/cdc/). UTF-8 JSON:
//
// | field   | meaning                                                             |
// |---------|---------------------------------------------------------------------|
// | tenant  | the tenant the commit belongs to                                    |
// | at      | ISO-8601 time of the commit                                         |
// | kind    | `write` (a query or atomic block), `migration`, `catalog` (tenant ops) |
// | changes | for `write`: one letter per row write, `i` insert, `u` update, `d` delete, in the order of the commit's operations on rows trees |
import type { RowChangeKind } from './txn-view.js'

export type CommitKind = 'write' | 'migration' | 'catalog'

export interface CommitHeader {
  tenant: string
  at: string
  kind: CommitKind
  changes: string
}

export function encodeCommitHeader(tenant: string, at: Date, kind: CommitKind, changes: readonly RowChangeKind[] = []): Buffer {
  const header: CommitHeader = { tenant, at: at.toISOString(), kind, changes: changes.join('') }
  return Buffer.from(JSON.stringify(header))
}

/** The header of a frame, or null for a frame this service did not write. */
export function decodeCommitHeader(meta: Uint8Array): CommitHeader | null {
  try {
    const header = JSON.parse(Buffer.from(meta).toString('utf8')) as Partial<CommitHeader>
    if (typeof header.tenant !== 'string' || typeof header.at !== 'string' || typeof header.kind !== 'string') return null
    return { tenant: header.tenant, at: header.at, kind: header.kind as CommitKind, changes: typeof header.changes === 'string' ? header.changes : '' }
  } catch {
    return null
  }
}
