// What a credential opens and a tenant's tokens (docs/api.md, "Access", "Tenant
// tokens"), and their types.
import { access_token_expires_in_s_max, access_token_name_chars_max } from '../../limits.js'
import type { FromSchema } from './from-schema.js'

/** The scopes of a tenant token, weakest first (the server's own list: src/tenants/access-tokens.ts, held equal in routes/tokens.ts). */
export const token_scopes = ['read', 'write', 'admin'] as const
const scope = { enum: token_scopes } as const
const date_time_or_null = { type: ['string', 'null'], format: 'date-time' } as const

export const access_body = {
  oneOf: [
    { type: 'object', required: ['credential'], properties: { credential: { const: 'service' } } },
    {
      type: 'object', required: ['credential', 'scope', 'tenants', 'expires_at'],
      properties: {
        credential: { const: 'tenant' },
        scope,
        tenants: { type: 'array', items: { type: 'string' }, description: 'the tenant it was issued for, then those it forked' },
        expires_at: date_time_or_null,
      },
    },
  ],
} as const

const token_fields = {
  id: { type: 'string', description: 'names the token in listings and revocations' },
  tenant: { type: 'string', description: 'the tenant it was issued for (an admin token also opens the tenants it forked)' },
  scope,
  name: { type: ['string', 'null'] },
  created_at: { type: 'string', format: 'date-time' },
  expires_at: { ...date_time_or_null, description: 'null: it does not expire' },
} as const
const token_field_names = ['id', 'tenant', 'scope', 'name', 'created_at', 'expires_at'] as const

export const token_entry_schema = {
  type: 'object', required: [...token_field_names, 'last_used_at'],
  properties: { ...token_fields, last_used_at: { ...date_time_or_null, description: 'to the minute: uses are written lazily' } },
} as const

export const tokens_body = {
  type: 'object', required: ['tenant', 'tokens'],
  properties: { tenant: { type: 'string' }, tokens: { type: 'array', items: token_entry_schema } },
} as const

export const issued_token_body = {
  type: 'object', required: ['token', ...token_field_names],
  properties: { token: { type: 'string', description: 'tdb_ and 43 characters' }, ...token_fields },
} as const

/** The body of POST …/tokens. */
export const issue_token_body = {
  type: 'object', required: ['scope'], additionalProperties: false,
  properties: {
    scope: { ...scope, description: 'read: queries that read, collections, schema, snapshots, diff, tail; write: also writing queries; admin: also snapshot, fork, restore, suspend, resume, compact' },
    name: { type: 'string', minLength: 1, maxLength: access_token_name_chars_max, description: 'a label for listings: no control characters (C0, DEL, C1) nor bidirectional formatting characters (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), refused with 400' },
    expires_in_s: { type: 'integer', minimum: 1, maximum: access_token_expires_in_s_max, description: 'seconds until it expires; absent: it does not expire' },
  },
  examples: [{ scope: 'read', name: 'acme web app', expires_in_s: 2592000 }],
} as const

export type TokenScope = (typeof token_scopes)[number]
export type Access = FromSchema<typeof access_body>
export type TokenEntry = FromSchema<typeof token_entry_schema>
export type IssuedToken = FromSchema<typeof issued_token_body>
export type IssueTokenRequest = FromSchema<typeof issue_token_body>
