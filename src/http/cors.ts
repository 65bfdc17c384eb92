// Cross-origin access (docs/api.md, "Origins and hosts"). Which origins are allowed is
// origin-policy.ts's decision, and a request from any other origin has already been
// refused by the request guard (403). Here an allowed origin gets the CORS headers
// (never `*`), and its preflight is answered before authentication, since browsers
// send no token with it: a preflight is never a failed authentication. Any other
// OPTIONS goes on to the auth hook like every request.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { cors_max_age_s } from '../limits.js'
import type { OriginPolicy } from './origin-policy.js'

export const cors_allow_methods = 'GET, POST, OPTIONS'
export const cors_allow_headers = 'Authorization, Content-Type, X-Service-Token, Service-Snapshot'
export const cors_expose_headers = 'Authorization, Content-Type, X-Service-Token, Service-Snapshot'

export function corsHook(policy: OriginPolicy) {
  return async function cors(request: FastifyRequest, reply: FastifyReply) {
    const origin = request.headers.origin
    if (typeof origin !== 'string') return
    reply.header('vary', 'Origin')
    // Checked again, so these headers never depend on the hooks' order alone.
    if (!policy.originAllowed(origin)) return
    reply.header('access-control-allow-origin', origin)
    reply.header('access-control-expose-headers', cors_expose_headers)
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply.header('access-control-allow-methods', cors_allow_methods)
      reply.header('access-control-allow-headers', cors_allow_headers)
      reply.header('access-control-max-age', String(cors_max_age_s))
      return reply.code(204).send()
    }
  }
}
