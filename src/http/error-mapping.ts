// The one mapping from every error class to an HTTP status and body (docs/api.md,
// "Errors"). Routes throw; the server's error handler calls mapError. The query route
// answers every failure of the query itself with 400 and adds `conflict` and Eel's
// position; the other routes use each code's own status.
import { LsnExpiredError, TailRequestError } from '../cdc/index.js'
import { CodecError } from '../codec/error.js'
import { EngineError, NotPrimaryError } from '../database/index.js'
import { EelError } from '../lang/diagnostic.js'
import { ConflictError } from '../mvcc/index.js'
import { QueryError } from '../query/index.js'
import { TenantError } from '../tenants/index.js'
import { body_bytes_max } from '../limits.js'
import { error_statuses, HttpError, type ErrorBody, type ErrorCode } from './errors.js'

export interface MappedError {
  status: number
  body: ErrorBody
  /** A bug or an unexpected failure: the server logs it. */
  log: boolean
}

/** Codes whose status is the same on the query route as everywhere (not the query's own failure). */
const keeps_status_on_query_route: ReadonlySet<ErrorCode> = new Set([
  'unauthorized', 'forbidden', 'unknown_tenant', 'unknown_snapshot', 'not_found', 'payload_too_large',
  'rate_limited', 'storage_error', 'internal', 'shutting_down', 'storage_full', 'storage_unavailable', 'not_primary',
])

export const storage_error_message = 'a read met a damaged page; see /api/v1/health/detail'
export const wal_damage_message = 'a read met a damaged WAL frame (the change history); see /api/v1/health/detail'

// What a failed write tells the client (docs/api.md, docs/operations.md "Disk full").
export const storage_full_message = 'the disk is full: nothing of this request was written; free space and retry'
export const outcome_unknown_message =
  'writing to disk failed: this write may or may not be durable; check whether it took effect before retrying, ' +
  'and restart the server (it accepts no more writes until then)'
export const fail_stopped_message =
  'the server stopped writing after a disk failure or an internal error: nothing of this request was written; ' +
  'restart the server (the cause is in /api/v1/health/detail)'
// An `internal` EngineError: the engine panicked in this request and stopped writing
// (docs/architecture.md, "The binding"). What it was doing may or may not have taken
// effect (a commit's completion, a compaction's checkpoint); the log has the panic.
export const engine_internal_message =
  'an internal error stopped the storage engine: what this request wrote may or may not have taken effect; ' +
  'the server accepts no more writes until it is restarted (see /api/v1/health/detail and the server log)'

export function mapError(err: unknown, route: { query: boolean }): MappedError {
  const base = classify(err)
  if (!route.query) return base
  const status = keeps_status_on_query_route.has(base.body.code) ? base.status : 400
  return { ...base, status, body: { ...base.body, conflict: base.body.code === 'conflict' } }
}

function mapped(code: ErrorCode, error: string, extra: Record<string, unknown> = {}, log = false): MappedError {
  return { status: error_statuses[code], body: { error, code, ...extra }, log }
}

function classify(err: unknown): MappedError {
  if (err instanceof EelError) {
    const d = err.diagnostic
    return mapped(d.code, err.message, {
      line: d.line,
      column: d.column,
      ...(d.expected === undefined ? {} : { expected: d.expected }),
      ...(d.hint === undefined ? {} : { hint: d.hint }),
    })
  }
  if (err instanceof QueryError || err instanceof TenantError || err instanceof HttpError) return mapped(err.code, err.message)
  // The embedding API turns every conflict into a QueryError or TenantError; one that
  // slipped through is still the documented conflict, never a 500.
  if (err instanceof ConflictError) return mapped('conflict', err.message)
  if (err instanceof NotPrimaryError) {
    return { status: err.status, body: { error: err.message, code: 'not_primary', primary: err.primary, outcome: err.outcome }, log: false }
  }
  if (err instanceof LsnExpiredError) return mapped('lsn_expired', err.message, { oldest_lsn: err.oldest_lsn })
  if (err instanceof TailRequestError) return mapped('bad_request', err.message)
  if (err instanceof EngineError) {
    if (err.code === 'corrupted') {
      return mapped('storage_error', err.file?.startsWith('wal/') === true ? wal_damage_message : storage_error_message, {}, true)
    }
    if (err.code === 'closed') return mapped('shutting_down', 'the server is shutting down')
    if (err.code === 'not_primary') return mapped('not_primary', 'this node is a replication follower: send writes to the primary', { primary: null, outcome: 'not_written' })
    if (err.code === 'storage_full') return mapped('storage_full', storage_full_message, {}, true)
    if (err.code === 'outcome_unknown') return mapped('storage_unavailable', outcome_unknown_message, { outcome: 'unknown' }, true)
    if (err.code === 'fail_stopped') return mapped('storage_unavailable', fail_stopped_message, { outcome: 'not_written' }, true)
    if (err.code === 'internal') return mapped('internal', engine_internal_message, {}, true)
    return mapped('internal', 'internal error; see the server log', {}, true)
  }
  if (err instanceof CodecError) return mapped('internal', 'internal error; see the server log', {}, true)
  // fastify's own errors: the body limit, a malformed request.
  const fastify = err as { statusCode?: unknown; code?: unknown; message?: unknown }
  if (fastify !== null && typeof fastify === 'object') {
    if (fastify.statusCode === 413 || fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return mapped('payload_too_large', `request body exceeds ${body_bytes_max} bytes`)
    }
    if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
      return mapped('bad_request', String(fastify.message))
    }
  }
  return mapped('internal', 'internal error; see the server log', {}, true)
}
