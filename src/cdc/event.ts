// One WAL frame → one tenant's change event (docs/api.md, "Change tail").
//
// Only `kind: 'write'` commits (a query or an atomic block) are events. Migrations and
// catalog commits (tenant ops: fork, compact, delete, snapshots) are not user writes:
// a migration rewrites stored rows to a new schema and a fork copies whole trees, and
// replaying either as row events would report changes no user made (and, for a fork,
// a whole tenant's rows at once). A consumer that needs the new shape after a schema
// change re-reads the collection.
//
// The frame's header (src/query/commit-header.ts) names the tenant and holds one
// letter per row write, in the order of the commit's put/delete operations on rows
// trees; the key and row come from those operations themselves.
import { decodeKey, decodeRow } from '../codec/index.js'
import type { Frame, Op } from '../engine/index.js'
import type { Value } from '../lang/ast.js'
import { decodeCommitHeader } from '../query/commit-header.js'
import { tenantPrefix } from '../query/layout.js'

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
}

const letters: Record<string, ChangeOp> = { i: 'insert', u: 'update', d: 'delete' }

/**
 * The event `frame` holds for `tenant`, or null when it holds none: another tenant's
 * commit, a frame without a valid header, a migration or catalog commit, or a write
 * that changed no row (of `collection`, when given): an event without changes tells a
 * consumer nothing, and a write with no row change is never committed today anyway.
 */
export function decodeEvent(frame: Frame, tenant: string, collection?: string): TailEvent | null {
  const header = decodeCommitHeader(frame.commit.meta)
  if (header === null || header.tenant !== tenant || header.kind !== 'write') return null
  const rowsPrefix = `${tenantPrefix(tenant)}r/`
  const changes: TailChange[] = []
  let written = 0
  for (const op of frame.commit.ops) {
    if ((op.op !== 'put' && op.op !== 'delete') || !op.tree.startsWith(rowsPrefix)) continue
    // Every rows write consumes its letter, filtered or not, so later letters stay aligned.
    const letter = header.changes[written++]
    const name = op.tree.slice(rowsPrefix.length)
    if (collection !== undefined && name !== collection) continue
    changes.push(decodeChange(frame.lsn, name, op, letter))
  }
  return changes.length === 0 ? null : { lsn: frame.lsn, at: header.at, tenant, changes }
}

function decodeChange(lsn: number, collection: string, op: Op & { op: 'put' | 'delete' }, letter: string | undefined): TailChange {
  try {
    const key = decodeKey(op.key)[0] ?? null
    if (op.op === 'delete') return { collection, op: 'delete', key, row: null }
    // The letter tells insert from update, which the put alone cannot. A letter that is
    // missing or says delete (a writer bug) falls back to 'update': "the row is now this".
    const kind = letter === undefined ? undefined : letters[letter]
    return { collection, op: kind === 'insert' ? 'insert' : 'update', key, row: decodeRow(op.value) }
  } catch (err) {
    // The WAL is checksummed, so a row that does not decode is a bug, not damage: say where.
    throw new Error(`change tail: the row write to '${collection}' at LSN ${lsn} does not decode: ${(err as Error).message}`, { cause: err })
  }
}
