// Which methods a path's routes take, and the answer for a request no route matched:
// 405 `method_not_allowed` with `Allow` when the path is known under other methods,
// else 404 `not_found` (docs/api.md). It is the part of the request step after auth
// (request-step.ts), so an unknown route neither reads its body nor tells a caller
// without the token anything.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendError } from './errors.js'
import { pathOnly } from './log.js'
import { routeOptionsOf } from './route-options.js'

/** Every method some route was registered with (fastify adds HEAD beside GET). */
const probe_methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'QUERY'] as const

/** The methods the routes at `path` (a canonical path) take, in a fixed order. */
export function allowedMethods(app: FastifyInstance, path: string): string[] {
  return probe_methods.filter((method) => app.findRoute({ method, url: path }) !== null)
}

export function sendMethodNotAllowed(reply: FastifyReply, method: string, path: string, allowed: readonly string[]): FastifyReply {
  reply.header('allow', allowed.join(', '))
  return sendError(reply, 'method_not_allowed', `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`)
}

/** True when it answered the request (no route matched: 405 or 404), false when a route matched. */
export function routeMissing(app: FastifyInstance) {
  return function missing(request: FastifyRequest, reply: FastifyReply): boolean {
    if (routeOptionsOf(request).url !== undefined) return false
    const path = pathOnly(request.url)
    const allowed = allowedMethods(app, path)
    if (allowed.length > 0) sendMethodNotAllowed(reply, request.method, path, allowed)
    else sendError(reply, 'not_found', `no route ${request.method} ${path}`)
    return true
  }
}
