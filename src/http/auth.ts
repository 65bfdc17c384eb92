// Authentication (docs/operations.md, "The token"): every request needs the token
// except those whose matched route is registered with `config: { public: true }` (the
// console's static files). The token may come as ?token=, "Authorization: Bearer", or
// "X-Service-Token" (a WebSocket: ?token= only). Comparison is constant time: both
// sides are hashed to equal length, then compared with timingSafeEqual.
//
// Throttle (docs/operations.md "The token"): only a wrong token counts as a failure.
// A request offering none is 401 without counting, a CORS preflight is answered
// before this hook, and a request from a refused origin or host never gets here.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AuthThrottle } from './auth-throttle.js'
import { sendError } from './errors.js'
import type {} from '@fastify/websocket' // its augmentation of FastifyRequest (request.ws)

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without the token (the console's static files); every other route needs it. */
    public?: boolean
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}

export class TokenCheck {
  readonly #expected: Buffer

  constructor(token: string) {
    this.#expected = digest(token)
  }

  matches(candidate: string): boolean {
    return timingSafeEqual(this.#expected, digest(candidate))
  }
}

/** Every token the request offers, in the places docs/operations.md ("The token") allows. */
export function offeredTokens(request: FastifyRequest): string[] {
  const offered: string[] = []
  const query = request.query as Record<string, unknown> | undefined
  const fromQuery = query?.token
  if (typeof fromQuery === 'string') offered.push(fromQuery)
  const authorization = request.headers.authorization
  if (authorization !== undefined) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (bearer?.[1] !== undefined) offered.push(bearer[1])
  }
  const header = request.headers['x-service-token']
  if (typeof header === 'string') offered.push(header)
  return offered
}

/** Whether the request offers a token in a header (a WebSocket tail may not). */
function offersHeaderToken(request: FastifyRequest): boolean {
  return request.headers.authorization !== undefined || request.headers['x-service-token'] !== undefined
}

function unauthorized(reply: FastifyReply, message: string): FastifyReply {
  reply.header('www-authenticate', 'Bearer')
  return sendError(reply, 'unauthorized', message)
}

export function authHook(token: string, throttle = new AuthThrottle()) {
  const check = new TokenCheck(token)
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    // Deny by default: the matched route decides, never the URL's spelling. Unknown
    // paths (fastify's 404 route) and unsupported methods need the token too.
    if (request.routeOptions.config.public === true) return
    // Tails take the token only as ?token= (docs/api.md): a header token never opens
    // a WebSocket, and is refused before the upgrade.
    if (request.ws === true && offersHeaderToken(request)) {
      return unauthorized(reply, 'a WebSocket takes the token only as ?token=')
    }
    const offered = offeredTokens(request).filter((t) => t !== '')
    // No token at all cannot be a guess: 401, and it does not count toward the throttle.
    if (offered.length === 0) return unauthorized(reply, 'missing or invalid token')
    const wait = throttle.retryAfterSeconds(request.ip)
    if (wait > 0) {
      reply.header('retry-after', String(wait))
      return sendError(reply, 'rate_limited', 'too many failed authentications from this address; retry later')
    }
    // Check every offered token so the time taken does not depend on which one matched.
    const results = offered.map((candidate) => check.matches(candidate))
    if (results.includes(true)) return
    throttle.recordFailure(request.ip)
    return unauthorized(reply, 'missing or invalid token')
  }
}
