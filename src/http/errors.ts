// The one catalogue of HTTP error codes and their statuses (product.md 4). Every
// error body is {"error": <sentence>, "code": <code>}.
import type { FastifyReply } from 'fastify'

export const error_statuses = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  shutting_down: 503,
} as const

export type ErrorCode = keyof typeof error_statuses

export interface ErrorBody {
  error: string
  code: ErrorCode
}

export function sendError(reply: FastifyReply, code: ErrorCode, error: string): FastifyReply {
  const body: ErrorBody = { error, code }
  return reply.code(error_statuses[code]).type('application/json; charset=utf-8').send(body)
}
