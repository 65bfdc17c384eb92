// The header every commit of the service carries (the engine's opaque commit meta),
// read back by the change feed (src/cdc/). UTF-8 JSON:
//
// | field  | meaning                                                              |
// |--------|----------------------------------------------------------------------|
// | tenant | the tenant the commit belongs to                                     |
// | at     | ISO-8601 time of the commit                                          |
// | kind   | `write` (a query or atomic block), `migration`, `catalog` (tenant ops) |
// | ops    | one letter per operation of the commit, in order: `i` insert, `u` update, `d` delete for a row write, `-` for any other operation; absent when the commit wrote no row |
// | restored | a `catalog` commit that restored the tenant to a snapshot: `{"snapshot": name, "lsn": the snapshot's LSN}`; absent otherwise |
//
// The letters are recorded by the very call that writes each row (TxnView.putRow,
// deleteRow), so a reader finds an operation's kind at its own index. Frames written
// before `ops` existed carry `changes` instead (one letter per row write, in the order
// of the commit's operations on the tenant's rows trees); decodeCommitHeader turns
// them into `ops`, so every reader sees one form.
import type { Op } from '../engine/index.js'
import { rowsPrefix } from './layout.js'

/** `i` insert, `u` update, `d` delete: the kind of one row write. */
export type RowChangeKind = 'i' | 'u' | 'd'

/** The letter of an operation that is not a row write. */
export const op_kind_other = '-'

export type CommitKind = 'write' | 'migration' | 'catalog'

/** The snapshot a restore made the tenant's head (docs/api.md, "Operations"). */
export interface RestoredFrom {
  snapshot: string
  lsn: number
}

export interface CommitHeader {
  tenant: string
  at: string
  kind: CommitKind
  /** One letter per operation (see above); empty when the commit wrote no row. */
  ops: string
  /** Present on the commit of a restore. */
  restored?: RestoredFrom
}

/**
 * The last time written and its ISO text: commits of one millisecond share it
 * (`toISOString` cost more than the rest of a one-row commit's header).
 */
const last_at = { ms: Number.NaN, iso: '' }

export function encodeCommitHeader(tenant: string, at: Date, kind: CommitKind, ops = '', restored: RestoredFrom | null = null): Buffer {
  const ms = at.getTime()
  if (ms !== last_at.ms) {
    last_at.iso = at.toISOString() // an invalid Date throws here, as JSON.stringify's call would
    last_at.ms = ms
  }
  if (restored === null) {
    // JSON.stringify's text of the same header, written out: `kind`, the letters of
    // `ops` and an ISO time need no escaping (test/txn-commit-header.test.ts holds the two equal).
    return Buffer.from(`{"tenant":${JSON.stringify(tenant)},"at":"${last_at.iso}","kind":"${kind}"${ops === '' ? '' : `,"ops":"${ops}"`}}`)
  }
  const header: Partial<CommitHeader> = { tenant, at: last_at.iso, kind }
  if (ops !== '') header.ops = ops
  header.restored = restored
  return Buffer.from(JSON.stringify(header))
}

/**
 * The header of a frame, or null for a frame this service did not write. `ops`, the
 * frame's operations, are needed only to read a header of the older form.
 */
export function decodeCommitHeader(meta: Uint8Array, ops: readonly Op[] = []): CommitHeader | null {
  let header: Partial<CommitHeader> & { changes?: unknown }
  try {
    // A view of the bytes, not a copy (Buffer.from of a Uint8Array would copy them).
    header = JSON.parse(Buffer.from(meta.buffer, meta.byteOffset, meta.byteLength).toString('utf8')) as typeof header
  } catch {
    return null
  }
  if (header === null || typeof header !== 'object') return null
  if (typeof header.tenant !== 'string' || typeof header.at !== 'string' || typeof header.kind !== 'string') return null
  const letters = typeof header.ops === 'string' ? header.ops
    : typeof header.changes === 'string' ? opsOfChanges(header.changes, ops, rowsPrefix(header.tenant))
    : ''
  const restored = header.restored
  const decoded: CommitHeader = { tenant: header.tenant, at: header.at, kind: header.kind as CommitKind, ops: letters }
  if (typeof restored === 'object' && restored !== null && typeof restored.snapshot === 'string' && typeof restored.lsn === 'number') {
    decoded.restored = { snapshot: restored.snapshot, lsn: restored.lsn }
  }
  return decoded
}

/** An older header's row letters placed at the operations they belong to: the put and delete operations on rows trees. */
function opsOfChanges(changes: string, ops: readonly Op[], prefix: string): string {
  let next = 0
  return ops.map((op) => ((op.op === 'put' || op.op === 'delete') && op.tree.startsWith(prefix) ? changes[next++] ?? op_kind_other : op_kind_other)).join('')
}
