// GET /api/v1/openapi.json: the OpenAPI 3.1 description of every route (behind auth,
// like everything under /api).
import type { FastifyInstance } from 'fastify'
import { openapi_document } from '../openapi.js'

export async function openapiRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/v1/openapi.json', async () => openapi_document)
}
