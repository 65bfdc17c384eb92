// One canonical spelling of every request path, decided once, before routing and
// before any hook (docs/api.md "Paths"). fastify calls `rewriteUrl` for plain requests
// and for WebSocket upgrades alike (@fastify/websocket dispatches upgrades through
// fastify's routing), so the auth step and the router always see the same string.
//
// The request target must be origin-form (`/…`); the path is percent-decoded once and
// must then be a plain path of RFC 3986 `pchar`s other than `%`: no encoded `/` or
// `\`, no decoded `%` (the router must not decode twice), no `?` or `#` hidden in an
// escape, no control or non-ASCII character, no empty segment (`//`) and no `.` or
// `..` segment, raw or encoded. The query string is left as sent.
//
// rewriteUrl cannot answer a request, so a refused one is marked (a symbol on the raw
// request) and routed to a path no route has; the request step's guard answers it 400.
import type { IncomingMessage } from 'node:http'

export type CanonicalTarget = { url: string } | { refused: string }

const refusal = Symbol('tenantdb.refused-target')

/** Where a refused request is routed: no route has this path. */
const refused_route_path = '/'

type Marked = IncomingMessage & { [refusal]?: string }

/** Decoded characters a path may hold: RFC 3986 unreserved, sub-delims, ':', '@' and '/'. */
const plain_path = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/

export function canonicalTarget(target: string): CanonicalTarget {
  if (!target.startsWith('/')) {
    return { refused: 'this server is not a proxy: the request target must be a path starting with /' }
  }
  const queryStart = target.indexOf('?')
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart)
  const query = queryStart === -1 ? '' : target.slice(queryStart)
  // Most paths hold no escape: then the path is the target's as sent.
  const escaped = rawPath.includes('%')
  let path = escaped ? '' : rawPath
  for (let i = 0; escaped && i < rawPath.length; i += 1) {
    const c = rawPath[i] as string
    if (c !== '%') {
      path += c
      continue
    }
    const hex = rawPath.slice(i + 1, i + 3)
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { refused: `malformed percent-escape at byte ${i} of the path` }
    const decoded = String.fromCharCode(parseInt(hex, 16))
    if (decoded === '/' || decoded === '\\') return { refused: 'the path may not hold an encoded / or \\' }
    if (decoded === '%') return { refused: 'the path may not hold an encoded %' }
    path += decoded
    i += 2
  }
  if (!plain_path.test(path)) {
    return { refused: 'the path may hold only letters, digits and - . _ ~ ! $ & \' ( ) * + , ; = : @ (after percent-decoding)' }
  }
  // A `.`, `..` or empty segment (but the last) shows as `/.` or `//`; most paths hold neither.
  if (!path.includes('//') && !path.includes('/.')) return { url: path + query }
  const segments = path.split('/').slice(1)
  for (let s = 0; s < segments.length; s += 1) {
    const segment = segments[s] as string
    if (segment === '.' || segment === '..') return { refused: 'the path may not hold a . or .. segment' }
    // A trailing slash leaves one empty last segment (/console/); any other is `//`.
    if (segment === '' && s !== segments.length - 1) return { refused: 'the path may not hold an empty segment (//)' }
  }
  return { url: path + query }
}

/** fastify's `rewriteUrl`: the canonical target, or a marked request routed nowhere. */
export function rewriteToCanonical(request: IncomingMessage): string {
  const canonical = canonicalTarget(request.url ?? '')
  if ('url' in canonical) return canonical.url
  ;(request as Marked)[refusal] = canonical.refused
  return refused_route_path
}

/** Why rewriteToCanonical refused the request's target, or undefined when it did not. */
export function refusedTarget(request: IncomingMessage): string | undefined {
  return (request as Marked)[refusal]
}
