// The matched route's options, read once per request. fastify's request.routeOptions
// builds a new object of a dozen fields at every read, and the request step, the
// metrics and the log line read it several times for every request. (A route that
// called reply.callNotFound would move the request to the 404 route after the first
// read; no route does.)
import type { FastifyRequest } from 'fastify'

const memo = Symbol('tenantdb.route-options')

type Memo = FastifyRequest & { [memo]?: FastifyRequest['routeOptions'] }

/** request.routeOptions, the same object for the whole request. */
export function routeOptionsOf(request: FastifyRequest): FastifyRequest['routeOptions'] {
  return ((request as Memo)[memo] ??= request.routeOptions)
}
