// One WAL frame → one tenant's change event (docs/api.md, "Change tail").
//
// Only `kind: 'write'` commits (a query or an atomic block) are events. Migrations and
// catalog commits (tenant ops: fork, compact, delete, snapshots) are not user writes:
// a migration rewrites stored rows to a new schema and a fork copies whole trees, and
// replaying either as row events would report changes no user made (and, for a fork,
// a whole tenant's rows at once). A consumer that needs the new shape after a schema
// change re-reads the collection.
//
// The frame's header (src/txn/commit-header.ts) names the tenant and holds one letter
// per operation: the operations with a row change's letter are the changes, in order;
// the key and row come from those operations themselves.
import { decodeKey, decodeRow } from '../codec/index.js'
import type { Value } from '../lang/ast.js'
import { decodeCommitHeader, rowsPrefix, type Frame, type Op } from '../txn/index.js'

export type ChangeOp = 'insert' | 'update' | 'delete'

export interface TailChange {
  collection: string
  op: ChangeOp
  /** The row's primary key value. */
  key: Value
  /** The row after the change; null for a delete. */
  row: Record<string, Value> | null
}

/** One committed transaction of one tenant. */
export interface TailEvent {
  lsn: number
  /** ISO-8601 time of the commit. */
  at: string
  tenant: string
  changes: TailChange[]
  /** Only on a restore: the tenant's data is now that of this snapshot, taken at `lsn`. */
  restored?: { snapshot: string; lsn: number }
}

const letters: Record<string, ChangeOp> = { i: 'insert', u: 'update', d: 'delete' }

/**
 * The event `frame` holds for `tenant`, or null when it holds none: another tenant's
 * commit, a frame without a valid header, a migration or catalog commit, or a write
 * that changed no row (of `collection`, when given): an event without changes tells a
 * consumer nothing, and a write with no row change is never committed today anyway.
 */
export function decodeEvent(frame: Frame, tenant: string, collection?: string): TailEvent | null {
  const ops = frame.commit.ops
  const header = decodeCommitHeader(frame.commit.meta, ops)
  if (header === null || header.tenant !== tenant) return null
  if (header.kind === 'catalog' && header.restored !== undefined) return { lsn: frame.lsn, at: header.at, tenant, changes: [], restored: header.restored }
  if (header.kind !== 'write') return null
  const prefix = rowsPrefix(tenant)
  const changes: TailChange[] = []
  if (header.ops !== '' && header.ops.length !== ops.length) {
    throw writerBug(frame.lsn, `${header.ops.length} operation letters for ${ops.length} operations`)
  }
  for (let i = 0; i < header.ops.length; i += 1) {
    const kind = letters[header.ops[i] as string]
    if (kind === undefined) continue
    const op = ops[i] as Op
    // The letter and the operation were written by the same call (TxnView.putRow, deleteRow).
    if ((op.op !== 'put' && op.op !== 'delete') || (op.op === 'delete') !== (kind === 'delete') || !op.tree.startsWith(prefix)) {
      throw writerBug(frame.lsn, `the letter '${kind}' on operation ${i} (${op.op}), which is no row ${kind} of tenant '${tenant}'`)
    }
    const name = op.tree.slice(prefix.length)
    if (collection !== undefined && name !== collection) continue
    changes.push(decodeChange(frame.lsn, name, op, kind))
  }
  return changes.length === 0 ? null : { lsn: frame.lsn, at: header.at, tenant, changes }
}

function decodeChange(lsn: number, collection: string, op: Op & { op: 'put' | 'delete' }, kind: ChangeOp): TailChange {
  try {
    const key = decodeKey(op.key)[0] ?? null
    if (op.op === 'delete') return { collection, op: 'delete', key, row: null }
    return { collection, op: kind, key, row: decodeRow(op.value) }
  } catch (err) {
    // The WAL is checksummed, so a row that does not decode is a bug, not damage: say where.
    throw new Error(`change tail: the row write to '${collection}' at LSN ${lsn} does not decode: ${(err as Error).message}`, { cause: err })
  }
}

/** A header that does not describe its own operations: the WAL is checksummed, so its writer was wrong. */
function writerBug(lsn: number, what: string): Error {
  return new Error(`change tail: the commit at LSN ${lsn} has ${what}`)
}
