// GET /api/v1/access: what the request's credential opens (docs/api.md, "Access"), so
// a client (the console) can show only that: the service token opens everything; a
// tenant token its scope and tenants.
import type { FastifyInstance } from 'fastify'
import { token_scopes } from '../../tenants/index.js'
import { credentialOf } from '../route-access.js'
import { described, responses } from '../schemas.js'

export const access_path = '/api/v1/access'

const schema = {
  operationId: 'getAccess',
  summary: 'What the credential opens: the service token everything, a tenant token its scope on its tenants',
  response: responses({
    200: described('OK', {
      oneOf: [
        { type: 'object', required: ['credential'], properties: { credential: { const: 'service' } } },
        {
          type: 'object', required: ['credential', 'scope', 'tenants', 'expires_at'],
          properties: {
            credential: { const: 'tenant' },
            scope: { enum: [...token_scopes] },
            tenants: { type: 'array', items: { type: 'string' }, description: 'the tenant it was issued for, then those it forked' },
            expires_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      ],
    }),
  }),
}

export function accessRoutes() {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(access_path, { schema, config: { access: 'any' } }, async (request) => {
      const credential = credentialOf(request)
      if (credential?.kind !== 'tenant') return { credential: 'service' }
      const { scope, tenants, expires_at_ms } = credential.grant
      return { credential: 'tenant', scope, tenants, expires_at: expires_at_ms === null ? null : new Date(expires_at_ms).toISOString() }
    })
  }
}
