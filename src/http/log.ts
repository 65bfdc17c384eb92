// What the HTTP server logs about a request. The query string is dropped (it may hold
// ?token=) and no header is logged, so no token can reach a log line.
import type { FastifyRequest } from 'fastify'

export function pathOnly(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

export const log_serializers = {
  req(request: FastifyRequest) {
    return { method: request.method, url: pathOnly(request.url), remoteAddress: request.ip }
  },
}
