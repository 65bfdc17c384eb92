// POST /api/v1/t/:tenant/ops (docs/api.md, "Operations"): create, fork, snapshot, suspend,
// resume, delete, compact → {ok: true, message}. `create` names the path tenant when
// `name` is omitted; `compact` always works on the path tenant.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import type { TenantOpRequest } from '../../tenants/index.js'
import { HttpError } from '../errors.js'
import { requireActiveTenant, tenantOf } from './params.js'

const ops = ['create', 'fork', 'snapshot', 'suspend', 'resume', 'delete', 'compact'] as const

/** The operation a raw request body names, for the tenant in the path. */
export function parseOpBody(raw: unknown, pathTenant: string): TenantOpRequest {
  let json: unknown
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : '')
  } catch {
    throw new HttpError('bad_request', 'the body must be JSON: {"op": "…", "name": "…", "target": "…"}')
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new HttpError('bad_request', 'the body must be a JSON object')
  const { op, name, target } = json as Record<string, unknown>
  if (typeof op !== 'string' || !(ops as readonly string[]).includes(op)) {
    throw new HttpError('bad_request', `op must be one of ${ops.join(', ')}`)
  }
  if (name !== undefined && typeof name !== 'string') throw new HttpError('bad_request', 'name must be a string')
  if (target !== undefined && typeof target !== 'string') throw new HttpError('bad_request', 'target must be a string')
  switch (op as (typeof ops)[number]) {
    case 'fork': case 'snapshot':
      if (target === undefined) throw new HttpError('bad_request', `${op} needs a target`)
      return { op: op as 'fork' | 'snapshot', name: name ?? pathTenant, target }
    case 'compact':
      return { op: 'compact', name: pathTenant }
    default:
      return { op: op as 'create' | 'suspend' | 'resume' | 'delete', name: name ?? pathTenant }
  }
}

export function opsRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post('/api/v1/t/:tenant/ops', async (request) => {
      const request_ = parseOpBody(request.body, tenantOf(request))
      if (request_.op === 'compact') requireActiveTenant(db, request_.name)
      return db.ops(request_)
    })
  }
}
