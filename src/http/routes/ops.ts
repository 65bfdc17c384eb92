// POST /api/v1/t/:tenant/ops (seed 4.4, product.md 5): create, fork, snapshot, suspend,
// resume, delete, compact → {ok: true, message}. `create` names the path tenant when
// `name` is omitted; `compact` always works on the path tenant.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import type { TenantOpRequest } from '../../tenants/index.js'
import { HttpError } from '../errors.js'
import { tenantOf } from './params.js'

/**
 * The operation a raw request body names, for the tenant in the path: the body as
 * JSON, `name` defaulting to the path tenant (always the path tenant for `compact`).
 * What the operation itself may be is checked by `db.ops`, for this route and the
 * embedding API alike.
 */
export function parseOpBody(raw: unknown, pathTenant: string): TenantOpRequest {
  let json: unknown
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : '')
  } catch {
    throw new HttpError('bad_request', 'the body must be JSON: {"op": "…", "name": "…", "target": "…"}')
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new HttpError('bad_request', 'the body must be a JSON object')
  const body = json as Record<string, unknown>
  const named = body.name === undefined ? pathTenant : body.name
  // `compact` works on the path tenant whatever `name` says; a name of the wrong type is still refused.
  const name = body.op === 'compact' && typeof named === 'string' ? pathTenant : named
  return { ...body, name } as TenantOpRequest
}

export function opsRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post('/api/v1/t/:tenant/ops', async (request) => db.ops(parseOpBody(request.body, tenantOf(request))))
  }
}
