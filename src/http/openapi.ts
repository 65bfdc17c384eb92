// The OpenAPI 3.1 description of every route under /api/v1, served at
// GET /api/v1/openapi.json. It is generated (by @fastify/swagger, in dynamic mode) from
// the schemas the routes are registered with, which are also what fastify validates
// requests with: one source. Each operation carries its operationId from its route;
// `servers` is the address the server actually listens on, filled in per request.
// test/http-limits.test.ts checks every registered route is described.
import type { AddressInfo } from 'node:net'
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import { version } from '../version.js'

export const openapi_path = '/api/v1/openapi.json'

export const swagger_options: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'tenantdb HTTP API',
      version,
      description: 'The local HTTP API of tenantdb (docs/api.md), generated from the schemas its routes validate requests with. ' +
        'Every route needs the server token. ' +
        'A path is percent-decoded once before routing; encoded `/` or `\\`, `%`, `//`, dot segments and absolute-form ' +
        'request targets are refused with 400. A known path under a method it does not take answers 405 ' +
        '`method_not_allowed` with `Allow`; an unknown path 404 `not_found` (both after authentication).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    security: [{ bearer: [] }, { serviceToken: [] }, { queryToken: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <SERVICE_TOKEN>' },
        serviceToken: { type: 'apiKey', in: 'header', name: 'X-Service-Token' },
        queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'the only form a change-tail WebSocket accepts' },
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

/** The fastify route path of an OpenAPI path (`{tenant}` → `:tenant`). */
export function routePath(openapiPath: string): string {
  return openapiPath.replace(/\{(\w+)\}/g, ':$1')
}
