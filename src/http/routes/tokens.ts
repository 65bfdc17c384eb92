// A tenant's tokens (docs/api.md, "Tenant tokens"), with the service token only:
//   POST   /api/v1/t/:tenant/tokens      {scope, name?, expires_in_s?} → 201, the token shown once
//   GET    /api/v1/t/:tenant/tokens      the tokens that open the tenant, never a secret
//   DELETE /api/v1/t/:tenant/tokens/:id  revokes: refused from the next request on, and
//                                        its open change tails end (token-watch.ts)
import type { FastifyInstance } from 'fastify'
import type { AccessTokens, IssueRequest, TokenScope } from '../../database/index.js'
import { described, ref, responses, tenant_param, tenant_params, unknown_tenant, with_body, writes } from '../schemas.js'
import { issue_token_body, issued_token_body, tokens_body, type IssuedToken, type TokenEntry, type TokenScope as WireTokenScope } from '../wire/index.js'

export const tokens_path = '/api/v1/t/:tenant/tokens'

// The wire's scopes are the server's (src/tenants/access-tokens.ts): this does not build otherwise.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const scopes_agree: Same<WireTokenScope, TokenScope> = true
void scopes_agree

const issue = {
  operationId: 'issueTenantToken',
  summary: 'Issue a token that opens this tenant (service token only); the answer is the only time the token is shown',
  params: tenant_params,
  body: issue_token_body,
  response: responses(
    {
      201: described('the token (store it now: only its hash is kept)', issued_token_body),
    },
    {
      400: '`bad_request`: a body that is not the JSON object described (a scope not among read, write, admin; an empty or long name, or one holding a control or bidirectional formatting character; expires_in_s out of range), too many tokens, or a refused path',
      ...unknown_tenant,
      409: '`conflict`: the tenant was deleted meanwhile (nothing changed)',
      ...with_body,
      ...writes,
    },
  ),
}

const list = {
  operationId: 'listTenantTokens',
  summary: 'The tokens that open this tenant (service token only): never a secret nor a hash',
  params: tenant_params,
  response: responses(
    {
      200: described('OK', tokens_body),
    },
    unknown_tenant,
  ),
}

const revoke = {
  operationId: 'revokeTenantToken',
  summary: 'Revoke a token that opens this tenant (service token only): refused from the next request on; its open change tails close with 4401',
  params: {
    type: 'object', required: ['tenant', 'id'],
    properties: { tenant: tenant_param, id: { type: 'string', description: 'the token\'s id' } },
  },
  response: responses(
    { 200: described('OK', ref('OpResult')) },
    { 404: '`unknown_tenant`, `unknown_token`', 409: '`conflict`: another change to the token won (nothing changed; retry)', ...writes },
  ),
}

export function tokenRoutes(tokens: AccessTokens) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const access = { tenant: 'service' } as const
    app.post<{ Params: { tenant: string }; Body: IssueRequest }>(tokens_path, { schema: issue, config: { access } }, async (request, reply) => {
      const issued: IssuedToken = await tokens.issue(request.params.tenant, request.body)
      return reply.code(201).send(issued)
    })
    // The opening thread answers the listing: it holds the last uses every thread saw.
    app.get<{ Params: { tenant: string } }>(tokens_path, { schema: list, config: { access, opener: true } }, async (request): Promise<{ tenant: string; tokens: TokenEntry[] }> =>
      ({ tenant: request.params.tenant, tokens: tokens.list(request.params.tenant) }))
    app.delete<{ Params: { tenant: string; id: string } }>(`${tokens_path}/:id`, { schema: revoke, config: { access } }, async (request) => {
      const { tenant, id } = request.params
      await tokens.revoke(tenant, id)
      return { ok: true, message: `revoked token ${id} of ${tenant}` }
    })
  }
}
