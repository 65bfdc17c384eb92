// The catalog and per-tenant read routes (docs/api.md, "Tenants"): tenants,
// collections, schema status, snapshots and diffs.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import { diff_rows_default } from '../../limits.js'
import { HttpError } from '../errors.js'
import { intParam, queryOf, requireActiveTenant, stringParam, tenantOf } from './params.js'

export function tenantRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/api/v1/tenants', async () => db.tenants())

    // Touching collections applies pending lazy migration (docs/api.md, "Tenants").
    app.get('/api/v1/t/:tenant/collections', async (request) => {
      const tenant = tenantOf(request)
      requireActiveTenant(db, tenant)
      return db.tenant(tenant).collections()
    })

    // Never migrates (docs/api.md, "Tenants"); a suspended tenant's status is still shown.
    app.get('/api/v1/t/:tenant/schema', async (request) => db.tenant(tenantOf(request)).schema())

    app.get('/api/v1/t/:tenant/snapshots', async (request) => db.tenant(tenantOf(request)).snapshots())

    app.get('/api/v1/t/:tenant/diff', async (request) => {
      const tenant = tenantOf(request)
      const query = queryOf(request)
      const from = stringParam(query, 'from')
      if (from === undefined || from === '') throw new HttpError('bad_request', 'diff needs from=<snapshot> (and optionally to=<snapshot|head>)')
      const to = stringParam(query, 'to')
      const collection = stringParam(query, 'collection')
      const limit = intParam(query, 'limit') ?? diff_rows_default
      if (limit < 1) throw new HttpError('bad_request', 'limit must be at least 1')
      if (collection !== undefined && !db.schema.ir.collections.some((c) => c.name === collection)) {
        throw new HttpError('unknown_collection', `no collection named '${collection}'`)
      }
      requireActiveTenant(db, tenant)
      return db.tenant(tenant).diff({ from, ...(to === undefined ? {} : { to }), ...(collection === undefined ? {} : { collection }), limit })
    })
  }
}
