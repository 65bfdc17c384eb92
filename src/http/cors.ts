// Cross-origin access (docs/api.md, "Origins and hosts"). Which origins are allowed is
// origin-policy.ts's decision, and a request from any other origin has already been
// refused by the request guard (403). Here an allowed origin gets the CORS headers
// (never `*`), and its preflight is answered before authentication, since browsers
// send no token with it: a preflight is never a failed authentication. Any other
// OPTIONS goes on to the auth step like every request.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { cors_max_age_s } from '../limits.js'
import type { OriginPolicy } from './origin-policy.js'

export const cors_allow_methods = 'GET, POST, OPTIONS'
export const cors_allow_headers = 'Authorization, Content-Type, X-Service-Token, Service-Snapshot'
export const cors_expose_headers = 'Authorization, Content-Type, X-Service-Token, Service-Snapshot'

/**
 * The CORS part of the request step (request-step.ts): adds the headers for an allowed
 * origin; true when it answered the request (an allowed preflight, 204).
 */
export function corsHeaders(policy: OriginPolicy) {
  return function cors(request: FastifyRequest, reply: FastifyReply): boolean {
    const origin = request.headers.origin
    if (typeof origin !== 'string') return false
    reply.header('vary', 'Origin')
    // Checked again, so these headers never depend on the step's order alone.
    if (!policy.originAllowed(origin)) return false
    reply.header('access-control-allow-origin', origin)
    reply.header('access-control-expose-headers', cors_expose_headers)
    if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return false
    reply.header('access-control-allow-methods', cors_allow_methods)
    reply.header('access-control-allow-headers', cors_allow_headers)
    reply.header('access-control-max-age', String(cors_max_age_s))
    reply.code(204).send()
    return true
  }
}
