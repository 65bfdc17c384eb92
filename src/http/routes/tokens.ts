// A tenant's tokens (docs/api.md, "Tenant tokens"), with the service token only:
//   POST   /api/v1/t/:tenant/tokens      {scope, name?, expires_in_s?} → 201, the token shown once
//   GET    /api/v1/t/:tenant/tokens      the tokens that open the tenant, never a secret
//   DELETE /api/v1/t/:tenant/tokens/:id  revokes: refused from the next request on, and
//                                        its open change tails end (token-watch.ts)
import type { FastifyInstance } from 'fastify'
import type { AccessTokens, IssueRequest } from '../../database/index.js'
import { token_scopes } from '../../tenants/index.js'
import { access_token_expires_in_s_max, access_token_name_chars_max } from '../../limits.js'
import { described, ref, responses, tenant_param, tenant_params, unknown_tenant, with_body, writes, type Schema } from '../schemas.js'

export const tokens_path = '/api/v1/t/:tenant/tokens'

const token_fields: Record<string, Schema> = {
  id: { type: 'string', description: 'names the token in listings and revocations' },
  tenant: { type: 'string', description: 'the tenant it was issued for (an admin token also opens the tenants it forked)' },
  scope: { enum: [...token_scopes] },
  name: { type: ['string', 'null'] },
  created_at: { type: 'string', format: 'date-time' },
  expires_at: { type: ['string', 'null'], format: 'date-time', description: 'null: it does not expire' },
}

const issue = {
  operationId: 'issueTenantToken',
  summary: 'Issue a token that opens this tenant (service token only); the answer is the only time the token is shown',
  params: tenant_params,
  body: {
    type: 'object', required: ['scope'], additionalProperties: false,
    properties: {
      scope: { enum: [...token_scopes], description: 'read: queries that read, collections, schema, snapshots, diff, tail; write: also writing queries; admin: also snapshot, fork, suspend, resume, compact' },
      name: { type: 'string', minLength: 1, maxLength: access_token_name_chars_max, description: 'a label for listings: no control characters (C0, DEL, C1) nor bidirectional formatting characters (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), refused with 400' },
      expires_in_s: { type: 'integer', minimum: 1, maximum: access_token_expires_in_s_max, description: 'seconds until it expires; absent: it does not expire' },
    },
    examples: [{ scope: 'read', name: 'acme web app', expires_in_s: 2592000 }],
  },
  response: responses(
    {
      201: described('the token (store it now: only its hash is kept)', {
        type: 'object', required: ['token', ...Object.keys(token_fields)],
        properties: { token: { type: 'string', description: 'tdb_ and 43 characters' }, ...token_fields },
      }),
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
      200: described('OK', {
        type: 'object', required: ['tenant', 'tokens'],
        properties: {
          tenant: { type: 'string' },
          tokens: {
            type: 'array',
            items: {
              type: 'object', required: [...Object.keys(token_fields), 'last_used_at'],
              properties: { ...token_fields, last_used_at: { type: ['string', 'null'], format: 'date-time', description: 'to the minute: uses are written lazily' } },
            },
          },
        },
      }),
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
      const issued = await tokens.issue(request.params.tenant, request.body)
      return reply.code(201).send(issued)
    })
    app.get<{ Params: { tenant: string } }>(tokens_path, { schema: list, config: { access } }, async (request) =>
      ({ tenant: request.params.tenant, tokens: tokens.list(request.params.tenant) }))
    app.delete<{ Params: { tenant: string; id: string } }>(`${tokens_path}/:id`, { schema: revoke, config: { access } }, async (request) => {
      const { tenant, id } = request.params
      await tokens.revoke(tenant, id)
      return { ok: true, message: `revoked token ${id} of ${tenant}` }
    })
  }
}
