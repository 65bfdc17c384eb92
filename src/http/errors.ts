// The one catalogue of HTTP error codes and their statuses (docs/api.md, "Errors").
// Every error body is {"error": <sentence>, "code": <code>}; some add fields (the query
// route's `conflict` and Eel positions, the tail's `oldest_lsn`).
import type { FastifyReply } from 'fastify'
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
  not_allowed_here: 400,
  readonly_snapshot: 400,
  migration_blocked: 400,
  query_timeout: 400,
  unauthorized: 401,
  origin_not_allowed: 403,
  host_not_allowed: 403,
  unknown_tenant: 404,
  unknown_snapshot: 404,
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
  [extra: string]: unknown
}

/** An error the HTTP layer raises itself (a malformed parameter, a missing field). */
export class HttpError extends CodedError<ErrorCode> {}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(error_statuses, code)
}

export function sendError(
  reply: FastifyReply,
  code: ErrorCode,
  error: string,
  extra: Record<string, unknown> = {},
  status: number = error_statuses[code],
): FastifyReply {
  const body: ErrorBody = { error, code, ...extra }
  return reply.code(status).type('application/json; charset=utf-8').send(body)
}
