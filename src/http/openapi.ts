// The OpenAPI 3.1 description of every route under /api/v1, served at
// GET /api/v1/openapi.json. It is generated (by @fastify/swagger, in dynamic mode) from
// the schemas the routes are registered with, which are also what fastify validates
// requests with: one source. Each operation carries its operationId from its route;
// `servers` is the address the server actually listens on, filled in per request.
// test/http-limits.test.ts checks every registered route is described.
import type { AddressInfo } from 'node:net'
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import { version } from '../version.js'
import { documentedAccess, type RouteAccess } from './route-access.js'

export const openapi_path = '/api/v1/openapi.json'

export const swagger_options: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'tenantdb HTTP API',
      version,
      description: 'The local HTTP API of tenantdb (docs/api.md), generated from the schemas its routes validate requests with. ' +
        'Every route needs a credential (docs/api.md, "Access"): the service token, which opens every route, or a tenant token ' +
        '(`tdb_…`), which opens one tenant (and the tenants it forked) with a scope: `read` (queries that read, collections, schema, ' +
        'snapshots, diff, the tail), `write` (also queries that write) or `admin` (also the operations snapshot, fork, restore, suspend, ' +
        'resume and compact). Each operation\'s `security` names the roles that open it, in any of the three places a credential goes: ' +
        '`service` (the service token) and `tenant:read`, `tenant:write`, `tenant:admin` (a tenant token of the path\'s tenant with that ' +
        'scope); an empty list means any valid credential. A tenant token on a tenant it does not open is answered as an unknown tenant ' +
        '(404), and on a route its scope does not reach with 403 `forbidden`. ' +
        'Every error body is `{"error", "code", "conflict"}` (`conflict` true only for a lost race); some add fields. ' +
        'A path is percent-decoded once before routing; encoded `/` or `\\`, `%`, `//`, dot segments and absolute-form ' +
        'request targets are refused with 400. A known path under a method it does not take answers 405 ' +
        '`method_not_allowed` with `Allow`; an unknown path 404 `not_found` (both after authentication).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    security: [{ bearer: [] }, { serviceToken: [] }, { queryToken: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>: the service token or a tenant token' },
        serviceToken: { type: 'apiKey', in: 'header', name: 'X-Service-Token', description: 'the service token or a tenant token' },
        queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'the service token or a tenant token; the only form a change-tail WebSocket accepts' },
      },
    },
  },
  // Shared schemas (schemas.ts) keep their $id as their name under components.schemas.
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
  },
  // OpenAPI 3.1 schemas are JSON Schema: `const` stays `const`.
  convertConstToEnum: false,
}

/**
 * The base URL of the API as this request reached it: the address the server listens
 * on, or for a wildcard listener (0.0.0.0, ::) the host the request named (the request
 * guard has already checked it names this server) with the listening port.
 */
export function serverUrl(listening: AddressInfo | null, requestHost: string): string {
  if (listening === null) return `http://${requestHost}`
  const wildcard = listening.address === '0.0.0.0' || listening.address === '::'
  const host = wildcard
    ? new URL(`http://${requestHost}`).hostname
    : listening.family === 'IPv6' ? `[${listening.address}]` : listening.address
  return `http://${host}:${listening.port}`
}

/** The generated document with `servers` set for this request. */
export function servedDocument(generated: Record<string, unknown>, url: string): Record<string, unknown> {
  const { openapi, info, ...rest } = generated
  return { openapi, info, servers: [{ url, description: 'this server' }], ...rest }
}

const security_schemes = ['bearer', 'serviceToken', 'queryToken'] as const

/**
 * A route's schema with what its declared access needs (route-access.ts): `security`,
 * one requirement per place a credential goes and role that opens the route, and the
 * same in a sentence after its description. server.ts applies it as each route is added.
 */
export function withAccess(schema: Record<string, unknown>, access: RouteAccess): Record<string, unknown> {
  const { roles, says } = documentedAccess(access)
  const security = roles === null ? []
    : roles.length === 0 ? security_schemes.map((scheme) => ({ [scheme]: [] }))
    : security_schemes.flatMap((scheme) => roles.map((role) => ({ [scheme]: [role] })))
  const description = typeof schema.description === 'string' ? `${schema.description} ${says}` : says
  return { ...schema, security, description }
}

/** The fastify route path of an OpenAPI path (`{tenant}` → `:tenant`). */
export function routePath(openapiPath: string): string {
  return openapiPath.replace(/\{(\w+)\}/g, ':$1')
}
