// GET /api/v1/openapi.json: the OpenAPI 3.1 description of every route (behind auth,
// like everything under /api), generated from the routes' schemas (../openapi.ts).
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { openapi_path, servedDocument, serverUrl } from '../openapi.js'
import { anyObject, described, responses } from '../schemas.js'

const schema = {
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  response: responses({ 200: described('the OpenAPI 3.1 document', anyObject) }),
}

/** `listening`: the address the server listens on, once it does. */
export function openapiRoutes(listening: () => AddressInfo | null) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(openapi_path, { schema, config: { access: 'any' } }, async (request) =>
      servedDocument(app.swagger() as unknown as Record<string, unknown>, serverUrl(listening(), request.host)))
  }
}
