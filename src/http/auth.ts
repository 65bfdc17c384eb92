// Authentication (docs/operations.md, "The token", "Tenant tokens"): every request
// needs a credential except those whose matched route is declared `access: 'public'`
// (the console's static files). A credential is the service token or a tenant token,
// and comes as ?token=, "Authorization: Bearer", or "X-Service-Token" (a WebSocket:
// ?token= only). What the credential then opens is decided by route-access.ts, asked
// here with the route's declaration.
//
// Comparison: every offered token is hashed (SHA-256); the service token's hash is
// compared with timingSafeEqual, and a token that is not the service token is looked
// up by its hash in the catalog (a lookup by hash reveals nothing of the token). Every
// offered token is checked; the first valid one, in the order above, is the credential.
// A request with the service token makes no catalog lookup for it: the time saved tells
// only what the answer tells anyway.
//
// Throttle (docs/operations.md "The token"): only a wrong token counts as a failure
// (a revoked token, or one of a deleted tenant, is a wrong token). A request offering
// none is 401 without counting, and so is an expired token (it was issued, so it is no
// guess); a CORS preflight is answered before this hook, and a request from a refused
// origin or host never gets here. The throttle refuses wrong tokens only: the offered
// ones are checked first, blocked address or not, with the same constant-time work, so
// a right token is never locked out by wrong ones sent from its address.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccessTokens } from '../database/index.js'
import { AuthThrottle } from './auth-throttle.js'
import { sendError } from './errors.js'
import { recordCredential, routeAccess, routeRefusal, type Credential } from './route-access.js'
import type {} from '@fastify/websocket' // its augmentation of FastifyRequest (request.ws)

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
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

export function unauthorized(reply: FastifyReply, message: string): FastifyReply {
  reply.header('www-authenticate', 'Bearer')
  return sendError(reply, 'unauthorized', message)
}

type Identified = { credential: Credential } | { expired: true } | null

/** Finds the credential among the offered tokens: the service token, or a tenant token in the catalog. */
export class Credentials {
  readonly #service: Buffer
  readonly #tokens: AccessTokens

  constructor(serviceToken: string, tokens: AccessTokens) {
    this.#service = digest(serviceToken)
    this.#tokens = tokens
  }

  identify(offered: readonly string[]): Identified {
    let found: Credential | undefined
    let expired = false
    for (const candidate of offered) {
      const hash = digest(candidate)
      const service = timingSafeEqual(this.#service, hash)
      const lookup = service ? null : this.#tokens.lookup(hash.toString('hex'))
      if (found !== undefined) continue
      if (service) found = { kind: 'service' }
      else if (lookup?.found === 'valid') found = { kind: 'tenant', grant: lookup.grant }
      else if (lookup?.found === 'expired') expired = true
    }
    if (found !== undefined) return { credential: found }
    return expired ? { expired: true } : null
  }
}

/**
 * `unidentified`, when given, answers a request whose tokens are all wrong instead of
 * the throttle here: a worker thread hands it to the opening thread, whose throttle
 * counts the failures of every thread (src/http/threads/).
 */
export function authHook(credentials: Credentials, tokens: AccessTokens, unidentified?: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>, throttle = new AuthThrottle()) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    // Deny by default: the matched route decides, never the URL's spelling. Unknown
    // paths (fastify's 404 route) and unsupported methods need a credential too.
    const access = routeAccess(request)
    if (access === 'public') return
    // Tails take the token only as ?token= (docs/api.md): a header token never opens
    // a WebSocket, and is refused before the upgrade.
    if (request.ws === true && offersHeaderToken(request)) {
      return unauthorized(reply, 'a WebSocket takes the token only as ?token=')
    }
    const offered = offeredTokens(request).filter((t) => t !== '')
    // No token at all cannot be a guess: 401, and it does not count toward the throttle.
    if (offered.length === 0) return unauthorized(reply, 'missing or invalid token')
    const identified = credentials.identify(offered)
    if (identified === null) {
      if (unidentified !== undefined) return unidentified(request, reply)
      const wait = throttle.retryAfterSeconds(request.ip)
      if (wait > 0) {
        reply.header('retry-after', String(wait))
        return sendError(reply, 'rate_limited', 'too many failed authentications from this address; retry later')
      }
      throttle.recordFailure(request.ip)
      return unauthorized(reply, 'missing or invalid token')
    }
    if ('expired' in identified) return unauthorized(reply, 'the token has expired')
    const { credential } = identified
    recordCredential(request.raw, credential)
    if (credential.kind === 'tenant') tokens.used(credential.grant.hash)
    const refusal = routeRefusal(credential, access, request.params, request.query)
    if (refusal !== null) return sendError(reply, refusal.code, refusal.message)
  }
}
