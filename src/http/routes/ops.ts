// POST /api/v1/t/:tenant/ops (docs/api.md, "Operations"): create, fork, snapshot,
// restore, suspend, resume, delete, compact → {ok: true, message}. `create` names the path
// tenant when `name` is omitted; `compact` always works on the path tenant.
import type { FastifyInstance } from 'fastify'
import type { AccessTokens, Database } from '../../database/index.js'
import { checkOpRequest } from '../../tenants/index.js'
import { HttpError } from '../errors.js'
import { credentialOf, opRefusal } from '../route-access.js'
import { described, ref, responses, suspended, tenant_params, with_body, writes } from '../schemas.js'
import { op_body } from '../wire/index.js'

// The body has one check, checkOpRequest (src/tenants/op-request.ts): the shape of an
// operation is a tenant rule, which db.ops applies too, so the route and the embedding
// API refuse a bad operation in the same words. The route's schema validates the path
// only; op_body (wire/tenants.ts) describes the body in the document, and
// test/http-validation.test.ts holds the description and the check to the same verdict
// over every combination of op, name and target it tries.

const schema = {
  operationId: 'runTenantOperation',
  summary: 'Tenant operations',
  description: 'An admin token runs snapshot, fork (into a new tenant it then administers too), restore, suspend, resume and compact ' +
    'on the tenants it opens, each tenant the body names checked as the path\'s; create, delete and dropping a snapshot need the ' +
    'service token (403 `forbidden`).',
  params: tenant_params,
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
    app.post<{ Params: { tenant: string }; Body: unknown }>('/api/v1/t/:tenant/ops', {
      schema,
      config: {
        access: { tenant: 'admin' },
        swaggerTransform: ({ schema: routeSchema, url }) => ({ schema: { ...routeSchema, body: op_body }, url }),
      },
    }, async (request) => {
      const op = checkOpRequest(opRequest(request.body, request.params.tenant))
      // Which operations an admin token may run, on which tenants (route-access.ts).
      const credential = credentialOf(request)
      const refusal = opRefusal(credential, op)
      if (refusal !== null) throw new HttpError(refusal.code, refusal.message)
      return credential?.kind === 'tenant' ? tokens.ops(op, credential.grant) : db.ops(op)
    })
  }
}
