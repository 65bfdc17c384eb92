// GET /api/v1/t/:tenant/usage (docs/api.md, "Usage"): what the tenant's statements used
// since the server started, what it holds and the limits that apply to it. Served by
// the opening thread, which holds every thread's counts (docs/architecture.md, "Every
// core"); a tenant's read token reads its own tenant's.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import { described, responses, tenant_params, unknown_tenant } from '../schemas.js'
import { tenant_usage_body, type TenantUsageBody } from '../wire/index.js'

const usage = {
  operationId: 'getTenantUsage',
  summary: 'The tenant\'s usage, what it holds and its limits',
  description: 'Counts since the server started, every thread\'s (a worker thread\'s statements reach them within a fraction of a second). ' +
    '`limits` is what applies: the tenant\'s own settings (`own_limits`, set by the operation `limit`) over the server\'s defaults.',
  params: tenant_params,
  response: responses({ 200: described('OK', tenant_usage_body) }, unknown_tenant),
}

export function usageRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Params: { tenant: string } }>('/api/v1/t/:tenant/usage', { schema: usage, config: { access: { tenant: 'read' }, opener: true } },
      async (request): Promise<TenantUsageBody> => db.tenant(request.params.tenant).usage())
  }
}
