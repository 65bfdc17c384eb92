// POST /api/v1/t/:tenant/ops (docs/api.md, "Operations"): create, fork, snapshot,
// restore, suspend, resume, delete, compact → {ok: true, message}. `create` names the path
// tenant when `name` is omitted; `compact` always works on the path tenant.
import type { FastifyInstance } from 'fastify'
import type { AccessTokens, Database } from '../../database/index.js'
import { checkOpRequest, name_pattern, type TenantOpRequest } from '../../tenants/index.js'
import { HttpError } from '../errors.js'
import { credentialOf, opRefusal } from '../route-access.js'
import { described, ref, responses, suspended, tenant_params, with_body, writes } from '../schemas.js'

const name_part = name_pattern.source.slice(1, -1)
const tenant_name = { type: 'string', pattern: name_pattern.source, description: 'a tenant name (defaults to the path tenant)' }
const any_name = { type: 'string', pattern: `^${name_part}(@${name_part})?$`, description: 'a tenant name, or tenant@snapshot (defaults to the path tenant)' }
const snapshot_name = { type: 'string', pattern: `^${name_part}@${name_part}$`, description: 'tenant@snapshot' }

/**
 * The body: one branch per op, each naming its own fields. It says what checkOpRequest
 * (tenants/op-request.ts) checks, no more and no less (test/http-validation.test.ts
 * compares the two over every combination of op, name and target it tries).
 */
export const op_body = {
  type: 'object', required: ['op'],
  properties: { op: { type: 'string' }, name: { type: 'string' }, target: { type: 'string' } },
  oneOf: [
    { type: 'object', required: ['op'], properties: { op: { enum: ['create', 'suspend', 'resume'] }, name: tenant_name } },
    { type: 'object', required: ['op'], properties: { op: { const: 'delete' }, name: any_name }, description: 'tenant@snapshot drops that snapshot' },
    { type: 'object', required: ['op', 'target'], properties: { op: { const: 'fork' }, name: any_name, target: { ...tenant_name, description: 'the new tenant' } } },
    { type: 'object', required: ['op', 'target'], properties: { op: { const: 'snapshot' }, name: tenant_name, target: { ...tenant_name, description: 'the snapshot name' } } },
    { type: 'object', required: ['op', 'name'], properties: { op: { const: 'restore' }, name: snapshot_name }, description: 'the tenant\'s head becomes that snapshot\'s version' },
    { type: 'object', required: ['op'], properties: { op: { const: 'compact' } }, description: 'always the path tenant: a name given is not used' },
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
      400: '`bad_request`: a body that is not the JSON object described, a bad name, or a refused path',
      404: '`unknown_tenant`, `unknown_snapshot`',
      409: '`tenant_exists`, `snapshot_exists`, `conflict` (another operation on the tenant won; retry)',
      ...suspended,
      ...with_body,
      ...writes,
    },
  ),
}

/**
 * The operation a body names, for the tenant in the path: `name` defaults to the path
 * tenant, and `compact` always works on it (a name of the wrong type is still refused).
 * Anything that is not an object is passed on as it is, for `checkOpRequest` to refuse.
 */
export function opRequest(body: unknown, pathTenant: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body
  const fields = body as Record<string, unknown>
  const named = fields.name === undefined ? pathTenant : fields.name
  return { ...fields, name: fields.op === 'compact' && typeof named === 'string' ? pathTenant : named }
}

export function opsRoutes(db: Database, tokens: AccessTokens) {
  return async function routes(app: FastifyInstance): Promise<void> {
    // The operation's shape is a tenant rule, checked once below HTTP (checkOpRequest,
    // also run by db.ops), so this route and the embedding API refuse a bad operation in
    // the same words. The schema documents the same shape: a body it refuses is refused
    // by the check, in the check's words.
    app.post<{ Params: { tenant: string }; Body: unknown }>('/api/v1/t/:tenant/ops', { schema, attachValidation: true, config: { access: { tenant: 'admin' } } }, async (request) => {
      const op = opRequest(request.body, request.params.tenant)
      if (request.validationError !== undefined) {
        // A path tenant outside the name pattern is a refused parameter, as on every route (docs/api.md, "Operations").
        if (request.validationError.validationContext === 'params') throw request.validationError
        checkOpRequest(op)
        throw new Error(`bug: the ops body schema refused what checkOpRequest accepts (${request.validationError.message})`)
      }
      // Which operations an admin token may run, on which tenants (route-access.ts).
      const credential = credentialOf(request)
      const refusal = opRefusal(credential, op as TenantOpRequest)
      if (refusal !== null) throw new HttpError(refusal.code, refusal.message)
      return credential?.kind === 'tenant' ? tokens.ops(op as TenantOpRequest, credential.grant) : db.ops(op as TenantOpRequest)
    })
  }
}
