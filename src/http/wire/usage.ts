// The bodies of a tenant's usage (docs/api.md, "Usage"): GET /api/v1/t/:tenant/usage,
// and the busiest tenants' usage in /health/detail's `isolation`; and their types.
import { tenant_limit_names } from '../../tenants/tenant-limits.js'
import type { FromSchema } from './from-schema.js'

const integer = { type: 'integer' } as const

const limit_value = { type: 'integer', minimum: 1 } as const

/** Limits by name, a name left out unlimited (docs/api.md, "Usage"). */
export const limits_schema = {
  type: 'object', additionalProperties: false,
  properties: Object.fromEntries(tenant_limit_names.map((name) => [name, limit_value])) as Record<typeof tenant_limit_names[number], typeof limit_value>,
} as const

const usage_properties = {
  statements: { type: 'integer', description: 'statements run (finished, failed or refused)' },
  rows_examined: integer,
  rows_written: integer,
  bytes_written: { type: 'integer', description: 'bytes of the commits\' payloads' },
  commits: integer,
  statement_ms: { type: 'number', description: 'time statements ran, less what they waited for a turn or a budget' },
  budget_wait_ms: { type: 'number', description: 'time statements waited for the tenant\'s budgets' },
  rate_limited: { type: 'integer', description: 'statements refused over a budget' },
  quota_exceeded: { type: 'integer', description: 'statements refused over the storage quota' },
  statement_limit: { type: 'integer', description: 'statements stopped by a statement limit' },
  live_bytes: { type: 'integer', description: 'key and value bytes of its rows and index entries, after every commit so far' },
  live_rows: integer,
} as const

const usage_required = [
  'statements', 'rows_examined', 'rows_written', 'bytes_written', 'commits', 'statement_ms', 'budget_wait_ms',
  'rate_limited', 'quota_exceeded', 'statement_limit', 'live_bytes', 'live_rows',
] as const

export const tenant_usage_body = {
  type: 'object', required: ['tenant', ...usage_required, 'limits', 'own_limits'],
  description: 'counts since the server started, every thread\'s',
  properties: {
    tenant: { type: 'string' },
    ...usage_properties,
    limits: { ...limits_schema, description: 'what applies: its own settings over the server\'s defaults' },
    own_limits: { ...limits_schema, description: 'its own settings alone' },
  },
} as const

/** /health/detail's `isolation`: the server's defaults and the busiest tenants' usage. */
export const isolation_detail_schema = {
  type: 'object', required: ['defaults', 'budget_wait_ms_max', 'busiest', 'other'],
  properties: {
    defaults: { ...limits_schema, description: 'the limits of every tenant that sets none of its own (`serve --tenant-limit`)' },
    budget_wait_ms_max: { type: 'integer', description: 'longest a statement waits for its tenant\'s budget before `rate_limited`' },
    busiest: { type: 'array', items: tenant_usage_body, description: 'the `--metrics-tenants` busiest tenants (rows examined plus rows written), busiest first' },
    other: {
      type: 'object', required: ['tenants', ...usage_required],
      description: 'every other tenant\'s usage summed',
      properties: { tenants: integer, ...usage_properties },
    },
  },
} as const

/** /stats' `refusals`: statements refused or stopped by a limit, every tenant's, by code. */
export const refusals_schema = {
  type: 'object', required: ['rate_limited', 'quota_exceeded', 'statement_limit'],
  properties: { rate_limited: integer, quota_exceeded: integer, statement_limit: integer },
} as const

export type TenantLimitsBody = FromSchema<typeof limits_schema>
export type TenantUsageBody = FromSchema<typeof tenant_usage_body>
export type IsolationDetail = FromSchema<typeof isolation_detail_schema>
