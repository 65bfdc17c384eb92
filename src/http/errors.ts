// Sending the one error body (docs/api.md, "Errors"; its schema and type: wire/errors.ts;
// the catalogue of codes and statuses: wire/error-codes.ts): {"error": <sentence>,
// "code": <code>, "conflict": <bool>}, on every route and for every answer, whoever
// sends it (the error handler through error-mapping.ts, the hooks' refusals through
// sendError, Node's parser handler in client-errors.ts). `conflict` is true only for a
// lost first-committer-wins race; an error's details add fields (Eel positions, a
// write's `fields`, the tail's `oldest_lsn`, `primary` and `outcome`).
import type { FastifyReply } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { CodedError } from '../coded-error.js'
import { error_statuses, type ErrorCode } from './wire/error-codes.js'

export { error_statuses, type ErrorCode } from './wire/error-codes.js'

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
  // A tenant over its budget is told when to come back, in the header HTTP clients read.
  const retry = (body as { retry_after_s?: unknown }).retry_after_s
  if (typeof retry === 'number') reply.header('retry-after', String(retry))
  return reply.code(status).type('application/json; charset=utf-8').send(body)
}

/** The `code` of the error body `raw` was answered with, if it was. */
export function answeredErrorCode(raw: IncomingMessage): ErrorCode | undefined {
  return answered_codes.get(raw)
}
