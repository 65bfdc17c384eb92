// Cross-origin access (seed 4.7, product.md 5). Allowed origins are the server's own
// (http://HOST:PORT as it listens; for a loopback or wildcard address also the other
// loopback spellings) and every --console-origin. Never `*`. An allowed preflight is
// answered here, before authentication, since browsers send no token with it; any
// other request, preflight-looking or not, goes on to the auth hook.
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { cors_max_age_s } from '../limits.js'

export const cors_allow_methods = 'GET, POST, OPTIONS'
export const cors_allow_headers = 'Authorization, Content-Type, X-Service-Token, Service-Snapshot'
export const cors_expose_headers = 'Authorization, Content-Type, X-Service-Token, Service-Snapshot'

/** `http://host:port` with the scheme, host and port normalised, or null if not an origin. */
export function normaliseOrigin(text: string): string | null {
  try {
    const url = new URL(text)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
    if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return null
    return url.origin
  } catch {
    return null
  }
}

const loopback = new Set(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'])

/** The origins a server listening at `address` is reached by. */
export function ownOrigins(address: AddressInfo): string[] {
  const port = address.port
  const host = address.address
  const origins = new Set<string>()
  const add = (h: string) => origins.add(`http://${h.includes(':') ? `[${h}]` : h}:${port}`)
  add(host)
  if (loopback.has(host)) {
    add('127.0.0.1')
    add('localhost')
    add('::1')
  }
  return [...origins].map((o) => normaliseOrigin(o) ?? o)
}

export function corsHook(app: FastifyInstance, consoleOrigins: readonly string[]) {
  const configured = new Set(consoleOrigins.map((o) => normaliseOrigin(o) ?? o))
  let own: Set<string> | null = null
  const allowed = (origin: string): boolean => {
    if (configured.has(origin)) return true
    if (own === null) {
      const address = app.server.address()
      if (address === null || typeof address !== 'object') return false
      own = new Set(ownOrigins(address))
    }
    return own.has(origin)
  }
  return async function cors(request: FastifyRequest, reply: FastifyReply) {
    const origin = request.headers.origin
    if (typeof origin !== 'string') return
    reply.header('vary', 'Origin')
    if (!allowed(origin)) return
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
