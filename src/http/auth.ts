// Authentication of every /api/* request (seed 5, product.md 3). The token may come
// as ?token=, "Authorization: Bearer", or "X-Service-Token". Comparison is constant
// time: both sides are hashed to equal length, then compared with timingSafeEqual.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { AuthThrottle } from './auth-throttle.js'
import { sendError } from './errors.js'

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

/** Every token the request offers, in the places seed 5 allows. */
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

export function isApiPath(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')
}

export function authHook(token: string, throttle = new AuthThrottle()) {
  const check = new TokenCheck(token)
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    if (!isApiPath(request.url)) return
    const wait = throttle.retryAfterSeconds(request.ip)
    if (wait > 0) {
      reply.header('retry-after', String(wait))
      return sendError(reply, 'rate_limited', 'too many failed authentications from this address; retry later')
    }
    // Check every offered token so the time taken does not depend on which one matched.
    const results = offeredTokens(request).map((offered) => check.matches(offered))
    if (results.includes(true)) return
    throttle.recordFailure(request.ip)
    reply.header('www-authenticate', 'Bearer')
    return sendError(reply, 'unauthorized', 'missing or invalid token')
  }
}
