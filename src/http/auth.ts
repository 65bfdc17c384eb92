// Authentication (docs/operations.md, "The token", "Tenant tokens"): every request
// needs a credential except those whose matched route is declared `access: 'public'`
// (the console's static files). A credential is the service token or a tenant token,
// and comes as ?token=, "Authorization: Bearer", or "X-Service-Token" (a WebSocket:
// ?token= only). What the credential then opens is decided by route-access.ts, asked
// here with the route's declaration.
//
// Comparison: every offered token is hashed (SHA-256); the service token's hash is
// compared with timingSafeEqual, and a token that is not the service token is found by
// its hash (which reveals nothing of the token) among the tokens verified lately
// (verified-tokens.ts), else looked up in the catalog. Every offered token is checked;
// the first valid one, in the order above, is the credential. A request with the
// service token or a token verified since the catalog last changed makes no catalog
// lookup for it: the time saved tells only what the answer tells anyway.
//
// Throttle (docs/operations.md "The token"): only a wrong token counts as a failure
// (a revoked token, or one of a deleted tenant, is a wrong token). A request offering
// none is 401 without counting, and so is an expired token (it was issued, so it is no
// guess); a CORS preflight is answered before this hook, and a request from a refused
// origin or host never gets here. The throttle refuses wrong tokens only: the offered
// ones are checked first, blocked address or not, with the same constant-time work, so
// a right token is never locked out by wrong ones sent from its address.
import * as crypto from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccessTokens, TokenGrant } from '../database/index.js'
import { AuthThrottle } from './auth-throttle.js'
import { sendError } from './errors.js'
import { recordCredential, routeAccess, routeRefusal, type Credential } from './route-access.js'
import { isUpgrade } from './upgrade-refusal.js'
import { VerifiedTokens } from './verified-tokens.js'

/** crypto.hash, the one-shot form (Node 20.12 on), costs about half of a Hash object. */
const hashOnce: ((algorithm: string, data: string, output: 'buffer') => Buffer) | undefined = (crypto as { hash?: typeof crypto.hash }).hash

/** The SHA-256 of a token's UTF-8. */
function digest(value: string): Buffer {
  return hashOnce !== undefined ? hashOnce('sha256', value, 'buffer') : crypto.createHash('sha256').update(value, 'utf8').digest()
}

/** Every token the request offers, in the places docs/operations.md ("The token") allows. */
export function offeredTokens(request: FastifyRequest): string[] {
  const offered: string[] = []
  const query = request.query as Record<string, unknown> | undefined
  const fromQuery = query?.token
  if (typeof fromQuery === 'string') offered.push(fromQuery)
  const authorization = request.headers.authorization
  if (authorization !== undefined) {
    const bearer = bearerToken(authorization)
    if (bearer !== undefined) offered.push(bearer)
  }
  const header = request.headers['x-service-token']
  if (typeof header === 'string') offered.push(header)
  return offered
}

const bearer_form = /^Bearer\s+(\S+)\s*$/i

/**
 * The token of `Authorization: Bearer <token>` (the scheme in any case, blanks around
 * the token). The common spelling, `Bearer ` and a token of visible ASCII, is read
 * without the regular expression; any other goes through it.
 */
export function bearerToken(authorization: string): string | undefined {
  if (authorization.startsWith('Bearer ') && authorization.length > 7 && visibleAscii(authorization, 7)) return authorization.slice(7)
  return bearer_form.exec(authorization)?.[1]
}

/** Whether every character of `text` from `from` on is visible ASCII (no blank: \S matches each). */
function visibleAscii(text: string, from: number): boolean {
  for (let i = from; i < text.length; i += 1) {
    const c = text.charCodeAt(i)
    if (c <= 0x20 || c >= 0x7f) return false
  }
  return true
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

/**
 * Finds the credential among the offered tokens: the service token, or a tenant token
 * verified lately or found in the catalog.
 */
export class Credentials {
  readonly #service: Buffer
  readonly #tokens: AccessTokens
  readonly #verified: VerifiedTokens

  constructor(serviceToken: string, tokens: AccessTokens, verified: VerifiedTokens = new VerifiedTokens()) {
    this.#service = digest(serviceToken)
    this.#tokens = tokens
    this.#verified = verified
  }

  identify(offered: readonly string[], now_ms: number = Date.now()): Identified {
    // The generation is read before the catalog: an entry is never remembered at a
    // generation newer than what it was read from.
    this.#verified.sync(this.#tokens.generation)
    let found: Credential | undefined
    let expired = false
    for (const candidate of offered) {
      const hash = digest(candidate)
      const service = crypto.timingSafeEqual(this.#service, hash)
      const tenant = service ? null : this.#tenantToken(hash.toString('hex'), now_ms)
      if (found !== undefined) continue
      if (service) found = { kind: 'service' }
      else if (tenant === 'expired') expired = true
      else if (tenant !== null) found = { kind: 'tenant', grant: tenant }
    }
    if (found !== undefined) return { credential: found }
    return expired ? { expired: true } : null
  }

  #tenantToken(hash: string, now_ms: number): TokenGrant | 'expired' | null {
    const known = this.#verified.find(hash, now_ms)
    if (known !== undefined) return known
    const lookup = this.#tokens.lookup(hash, now_ms)
    if (lookup.found === 'valid') {
      this.#verified.remember(lookup.grant)
      return lookup.grant
    }
    return lookup.found === 'expired' ? 'expired' : null
  }
}

/**
 * The authentication step of the request step (request-step.ts): true when it answered
 * the request (401, 429, or the route access's 403/404), false when the request goes on.
 * `unidentified`, when given, takes a request whose tokens are all wrong instead of the
 * throttle here (and answers it in its own time): a worker thread hands it to the
 * opening thread, whose throttle counts the failures of every thread (src/http/threads/).
 */
export function authenticated(credentials: Credentials, noteUse: (hash: string) => void, throttle: AuthThrottle, unidentified?: (request: FastifyRequest, reply: FastifyReply) => void) {
  return function authenticate(request: FastifyRequest, reply: FastifyReply): boolean {
    // Deny by default: the matched route decides, never the URL's spelling. Unknown
    // paths (fastify's 404 route) and unsupported methods need a credential too.
    const access = routeAccess(request)
    if (access === 'public') return false
    // Tails take the token only as ?token= (docs/api.md): a header token never opens
    // a WebSocket, and is refused before the upgrade.
    if (isUpgrade(request) && offersHeaderToken(request)) {
      unauthorized(reply, 'a WebSocket takes the token only as ?token=')
      return true
    }
    const offered = offeredTokens(request).filter((t) => t !== '')
    // No token at all cannot be a guess: 401, and it does not count toward the throttle.
    if (offered.length === 0) {
      unauthorized(reply, 'missing or invalid token')
      return true
    }
    const identified = credentials.identify(offered)
    if (identified === null) {
      if (unidentified !== undefined) {
        unidentified(request, reply)
        return true
      }
      const wait = throttle.retryAfterSeconds(request.ip)
      if (wait > 0) {
        reply.header('retry-after', String(wait))
        sendError(reply, 'rate_limited', 'too many failed authentications from this address; retry later')
        return true
      }
      throttle.recordFailure(request.ip)
      unauthorized(reply, 'missing or invalid token')
      return true
    }
    if ('expired' in identified) {
      unauthorized(reply, 'the token has expired')
      return true
    }
    const { credential } = identified
    recordCredential(request.raw, credential)
    if (credential.kind === 'tenant') noteUse(credential.grant.hash)
    const refusal = routeRefusal(credential, access, request.params, request.query)
    if (refusal === null) return false
    sendError(reply, refusal.code, refusal.message)
    return true
  }
}
