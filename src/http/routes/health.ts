// GET /api/v1/health: liveness (seed 2.1, product.md 5). Says nothing of corruption
// or WAL lag; that is the health detail route's job.
import type { FastifyInstance } from 'fastify'
import { version } from '../../version.js'

export interface HealthBody {
  ok: true
  tenant: string
  version: string
}

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/v1/health', async (): Promise<HealthBody> => ({ ok: true, tenant: 'default', version }))
}
