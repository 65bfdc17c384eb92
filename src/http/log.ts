// What the HTTP server logs about a request (docs/operations.md, "Logs"): one JSON line
// when it is answered (a WebSocket tail: when it closes), with its method, route
// pattern, tenant, status, error code and duration, and nothing on arrival. The query
// string is never logged (it may hold ?token=), nor any header, nor the path a client
// sent (the route pattern names the route), so no token can reach a log line.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { answeredErrorCode } from './errors.js'
import { routeOptionsOf } from './route-options.js'
import { wasForwarded } from './threads/forward.js'

export function pathOnly(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

export const log_serializers = {
  req(request: FastifyRequest) {
    return { method: request.method, url: pathOnly(request.url), remoteAddress: request.ip }
  },
}

/** The route pattern a request matched (`/api/v1/t/:tenant/query`), or null when it matched none. */
export function routePattern(request: FastifyRequest): string | null {
  return routeOptionsOf(request).url ?? null
}

/**
 * The request's line: `method`, `route` (the pattern, null when no route matched),
 * `tenant` (the `:tenant` of the route, when it has one), `status`, `code` (of an error
 * body), `duration_ms`; `err` too when the answer could not be sent whole.
 */
export function logRequest(request: FastifyRequest, status: number, duration_ms: number, err?: Error): void {
  const level = err === undefined ? 'info' : 'error'
  // pino's own check (fastify's type of its logger leaves it out): no line, no work.
  if ((request.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.(level) === false) return
  const route = routePattern(request)
  const tenant = route !== null && route.includes(':tenant') ? (request.params as { tenant?: string }).tenant : undefined
  const code = answeredErrorCode(request.raw)
  // Field by field, in this order (the line's), without a spread per optional field.
  const line: Record<string, unknown> = { method: request.method, route }
  if (tenant !== undefined) line.tenant = tenant
  line.status = status
  if (code !== undefined) line.code = code
  line.duration_ms = Math.round(duration_ms * 1000) / 1000
  if (err !== undefined) line.err = err
  request.log[level](line, 'request')
}

/** fastify's request lines, replaced by logRequest's one line per request. */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // A worker thread's forwarded request: the opening thread wrote its line.
    if (wasForwarded(request)) return
    logRequest(request, reply.statusCode, reply.elapsedTime, error ?? undefined)
  }
}
