// GET /api/v1/health: liveness (docs/api.md, "Health and stats"), which says nothing of
// corruption or WAL lag; GET /api/v1/health/detail and /api/v1/stats say that. The
// detail and the stats are the opening thread's: they show the tenants' usage of every
// thread (docs/architecture.md, "Every core").
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import type { ReplicationReporter } from '../../replication/index.js'
import { busiestTenants } from '../metrics/busiest-tenants.js'
import { described, responses } from '../schemas.js'
import { health_body, health_detail_body, stats_body, type Health, type HealthDetail, type Stats } from '../wire/index.js'

const health = {
  operationId: 'getHealth',
  summary: 'Liveness',
  response: responses({ 200: described('OK', health_body) }),
}

const health_detail = {
  operationId: 'getHealthDetail',
  summary: 'Corruption, WAL, recovery, fsync and isolation detail',
  response: responses({ 200: described('OK', health_detail_body) }),
}

const stats = {
  operationId: 'getStats',
  summary: 'Statistics',
  response: responses({ 200: described('OK', stats_body) }),
}

// Each answer is typed as its wire type (wire/health.ts): what the database reports
// must be what the schema describes, or this does not build. `busiest`: how many
// tenants' usage the detail names (`--metrics-tenants`, as the metrics do).
export function healthRoutes(db: Database, replication: ReplicationReporter | null, busiest: number) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/api/v1/health', { schema: health, config: { access: 'any' } }, async (): Promise<Health> => db.health())
    app.get('/api/v1/health/detail', { schema: health_detail, config: { access: 'service', opener: true } }, async (): Promise<HealthDetail> => {
      const detail = db.healthDetail()
      const ranked = busiestTenants(db.usage(), busiest)
      return { ...detail, isolation: { ...detail.isolation, busiest: ranked.named, other: ranked.other }, replication: replication?.status() ?? null }
    })
    app.get('/api/v1/stats', { schema: stats, config: { access: 'service', opener: true } }, async (): Promise<Stats> => db.stats())
  }
}
