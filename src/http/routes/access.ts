// GET /api/v1/access: what the request's credential opens (docs/api.md, "Access"), so
// a client (the console) can show only that: the service token opens everything; a
// tenant token its scope and tenants.
import type { FastifyInstance } from 'fastify'
import { credentialOf } from '../route-access.js'
import { described, responses } from '../schemas.js'
import { access_body, type Access } from '../wire/index.js'

export const access_path = '/api/v1/access'

const schema = {
  operationId: 'getAccess',
  summary: 'What the credential opens: the service token everything, a tenant token its scope on its tenants',
  response: responses({ 200: described('OK', access_body) }),
}

export function accessRoutes() {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(access_path, { schema, config: { access: 'any' } }, async (request): Promise<Access> => {
      const credential = credentialOf(request)
      if (credential?.kind !== 'tenant') return { credential: 'service' }
      const { scope, tenants, expires_at_ms } = credential.grant
      return { credential: 'tenant', scope, tenants: [...tenants], expires_at: expires_at_ms === null ? null : new Date(expires_at_ms).toISOString() }
    })
  }
}
