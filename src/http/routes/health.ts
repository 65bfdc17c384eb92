// GET /api/v1/health: liveness (docs/api.md, "Health and stats"), which says nothing of
// corruption or WAL lag; GET /api/v1/health/detail and /api/v1/stats say that.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'

export interface HealthBody {
  ok: true
  tenant: string
  version: string
}

export function healthRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/api/v1/health', async (): Promise<HealthBody> => db.health())
    app.get('/api/v1/health/detail', async () => db.healthDetail())
    app.get('/api/v1/stats', async () => db.stats())
  }
}
