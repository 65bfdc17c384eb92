// The catalog and per-tenant read routes (seed 4.2, product.md 5): tenants,
// collections, schema status, snapshots and diffs.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import { intParam, queryOf, stringParam, tenantOf } from './params.js'

export function tenantRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/api/v1/tenants', async () => db.tenants())

    // Touching collections applies pending lazy migration (seed 4.2 rule 1).
    app.get('/api/v1/t/:tenant/collections', async (request) => db.tenant(tenantOf(request)).collections())

    // Never migrates (seed 4.2 rule 2); a suspended tenant's status is still shown.
    app.get('/api/v1/t/:tenant/schema', async (request) => db.tenant(tenantOf(request)).schema())

    app.get('/api/v1/t/:tenant/snapshots', async (request) => db.tenant(tenantOf(request)).snapshots())

    app.get('/api/v1/t/:tenant/diff', async (request) => {
      const query = queryOf(request)
      const to = stringParam(query, 'to')
      const collection = stringParam(query, 'collection')
      const limit = intParam(query, 'limit')
      return db.tenant(tenantOf(request)).diff({
        from: stringParam(query, 'from') ?? '',
        ...(to === undefined ? {} : { to }),
        ...(collection === undefined ? {} : { collection }),
        ...(limit === undefined ? {} : { limit }),
      })
    })
  }
}
