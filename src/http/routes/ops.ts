// POST /api/v1/t/:tenant/ops (docs/api.md, "Operations"): create, fork, snapshot,
// suspend, resume, delete, compact → {ok: true, message}. `create` names the path
// tenant when `name` is omitted; `compact` always works on the path tenant.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import { name_pattern, type TenantOpRequest } from '../../tenants/index.js'
import { described, ref, responses, suspended, tenant_params, unknown_tenant, with_body, writes } from '../schemas.js'
import { requireActiveTenant } from './params.js'

/** The body once its schema accepted it. */
export type OpBody =
  | { op: 'create' | 'suspend' | 'resume' | 'delete'; name?: string }
  | { op: 'fork' | 'snapshot'; name?: string; target: string }
  | { op: 'compact' }

const tenant_name = { type: 'string', pattern: name_pattern.source, description: 'a tenant name (defaults to the path tenant)' }
const any_name = { type: 'string', description: 'a tenant name, or tenant@snapshot (defaults to the path tenant)' }

/** One branch per op; each names its own fields (validation.ts reports the branch `op` names). */
const op_body = {
  type: 'object', required: ['op'],
  oneOf: [
    { type: 'object', required: ['op'], properties: { op: { enum: ['create', 'suspend', 'resume'] }, name: tenant_name } },
    { type: 'object', required: ['op'], properties: { op: { const: 'delete' }, name: any_name }, description: 'tenant@snapshot drops that snapshot' },
    { type: 'object', required: ['op', 'target'], properties: { op: { const: 'fork' }, name: any_name, target: { ...tenant_name, description: 'the new tenant' } } },
    { type: 'object', required: ['op', 'target'], properties: { op: { const: 'snapshot' }, name: tenant_name, target: { ...tenant_name, description: 'the snapshot name' } } },
    { type: 'object', required: ['op'], properties: { op: { const: 'compact' } }, description: 'always the path tenant' },
  ],
  examples: [{ op: 'snapshot', name: 'acme', target: 'before' }],
}

const schema = {
  operationId: 'runTenantOperation',
  summary: 'Tenant operations',
  params: tenant_params,
  body: op_body,
  response: responses(
    { 200: described('OK', ref('OpResult')) },
    {
      ...unknown_tenant,
      400: '`bad_request`: a body that is not the JSON object described, a bad name, or a refused path',
      404: '`unknown_tenant`, `unknown_snapshot`',
      409: '`tenant_exists`, `snapshot_exists`, `conflict` (another operation on the tenant won; retry)',
      ...suspended,
      ...with_body,
      ...writes,
    },
  ),
}

/** The operation a validated body names, for the tenant in the path. */
export function opRequest(body: OpBody, pathTenant: string): TenantOpRequest {
  switch (body.op) {
    case 'fork': case 'snapshot':
      return { op: body.op, name: body.name ?? pathTenant, target: body.target }
    case 'compact':
      return { op: 'compact', name: pathTenant }
    default:
      return { op: body.op, name: body.name ?? pathTenant }
  }
}

export function opsRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: { tenant: string }; Body: OpBody }>('/api/v1/t/:tenant/ops', { schema }, async (request) => {
      const request_ = opRequest(request.body, request.params.tenant)
      if (request_.op === 'compact') requireActiveTenant(db, request_.name)
      return db.ops(request_)
    })
  }
}
