// The one catalogue of HTTP error codes and their statuses (docs/api.md, "Errors"), and
// the one shape of an error body: {"error": <sentence>, "code": <code>, "conflict":
// <bool>}, on every route and for every answer, whoever sends it (the error handler
// through error-mapping.ts, the hooks' refusals through sendError, Node's parser
// handler in client-errors.ts). `conflict` is true only for a lost first-committer-wins
// race; an error's details add fields (Eel positions, a write's `fields`, the tail's
// `oldest_lsn`, `primary` and `outcome`).
import type { FastifyReply } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { CodedError } from '../coded-error.js'

export const error_statuses = {
  bad_request: 400,
  syntax_error: 400,
  type_error: 400,
  unknown_collection: 400,
  unknown_field: 400,
  constraint_violation: 400,
  key_too_large: 400,
  row_too_large: 400,
  lookup_too_large: 400,
  // An answer past result_bytes_max, a statement holding more than statement_memory_bytes_max
  // (docs/api.md, "Size of an answer"): the request's failure, as every query's is.
  result_too_large: 400,
  statement_memory_exceeded: 400,
  not_allowed_here: 400,
  readonly_snapshot: 400,
  migration_blocked: 400,
  query_timeout: 400,
  unauthorized: 401,
  // A tenant token whose scope does not reach the route or statement (docs/api.md, "Access").
  forbidden: 403,
  origin_not_allowed: 403,
  host_not_allowed: 403,
  unknown_tenant: 404,
  unknown_snapshot: 404,
  unknown_token: 404,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  // A lost first-committer-wins race (nothing was changed; retrying is safe). The
  // query route answers it with 400 and `conflict: true` instead, as every failure of
  // a query (docs/api.md, "Errors").
  conflict: 409,
  tenant_exists: 409,
  snapshot_exists: 409,
  lsn_expired: 410,
  payload_too_large: 413,
  tenant_suspended: 423,
  rate_limited: 429,
  // A write or tenant operation sent to a replication follower (the body's `primary`
  // names where writes go); a primary that cannot hold its lease answers 503 instead.
  not_primary: 421,
  headers_too_large: 431,
  storage_error: 500,
  internal: 500,
  shutting_down: 503,
  storage_unavailable: 503,
  storage_full: 507,
} as const

export type ErrorCode = keyof typeof error_statuses

export interface ErrorBody {
  error: string
  code: ErrorCode
  /** True only for a lost first-committer-wins race: retrying is safe. */
  conflict: boolean
  [extra: string]: unknown
}

/** The body of every error answer: the sentence, the code, `conflict`, then the fields `extra` adds. */
export function errorBody(code: ErrorCode, error: string, extra: Readonly<Record<string, unknown>> = {}): ErrorBody {
  return { error, code, conflict: code === 'conflict', ...extra }
}

/** An error the HTTP layer raises itself (a malformed parameter, a missing field). */
export class HttpError extends CodedError<ErrorCode> {}

export function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  error: string,
  extra: Record<string, unknown> = {},
  status: number = error_statuses[code],
): FastifyReply {
  return sendErrorBody(reply, status, errorBody(code, error, extra))
}

const answered_codes = new WeakMap<IncomingMessage, ErrorCode>()

/**
 * Answers with an error body, and remembers its code for the request's log line
 * (log.ts). Every error body the server sends goes through here.
 */
export function sendErrorBody(reply: FastifyReply, status: number, body: ErrorBody): FastifyReply {
  answered_codes.set(reply.request.raw, body.code)
  return reply.code(status).type('application/json; charset=utf-8').send(body)
}

/** The `code` of the error body `raw` was answered with, if it was. */
export function answeredErrorCode(raw: IncomingMessage): ErrorCode | undefined {
  return answered_codes.get(raw)
}
