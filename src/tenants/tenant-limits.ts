// A tenant's limits (docs/operations.md, "Isolation"): what one tenant may store, how
// fast it may write and read, and how much one of its statements may do. Each is a
// whole number named with its unit; a tenant's setting replaces the server's default
// (`tenantdb serve --tenant-…`), except the statement limits, which a tenant's setting
// may lower but never raise above the server's. Kept in the tenant's catalog record
// (catalog.ts), so they are durable, replicated and forked with the catalog.
import { TenantError } from './errors.js'

/** Every limit there is, in the order docs/operations.md lists them. */
export const tenant_limit_names = [
  // Storage quota: over it, writes that grow the tenant are refused (`quota_exceeded`).
  'storage_bytes', 'storage_rows',
  // Budgets, each a ceiling and the reserved share the fair scheduler favours.
  'commits_per_s', 'commits_per_s_reserved',
  'write_bytes_per_s', 'write_bytes_per_s_reserved',
  'rows_examined_per_s', 'rows_examined_per_s_reserved',
  // One statement's limits (`statement_limit`).
  'statement_time_ms', 'statement_rows_examined', 'statement_memory_bytes',
] as const

export type TenantLimitName = typeof tenant_limit_names[number]

/** Limits set on one tenant; a name left out takes the server's default. */
export type TenantLimits = Partial<Record<TenantLimitName, number>>

/** A change of a tenant's limits: a number sets one, null returns it to the server's default. */
export type TenantLimitsChange = Partial<Record<TenantLimitName, number | null>>

/** The statement limits: a tenant's setting never raises one above the server's. */
export const statement_limit_names: ReadonlyArray<TenantLimitName> = ['statement_time_ms', 'statement_rows_examined', 'statement_memory_bytes']

/** Largest value of any limit: exact as a double, far beyond any real budget. */
export const tenant_limit_value_max = 2 ** 53 - 1

/**
 * `change` as a TenantLimitsChange, or a TenantError `bad_request` naming what is wrong:
 * not an object, an unknown name, a value that is neither null nor a whole number from
 * 1 to tenant_limit_value_max (0 would stop a tenant for good: suspend it instead).
 */
export function checkLimitsChange(change: unknown): TenantLimitsChange {
  if (typeof change !== 'object' || change === null || Array.isArray(change)) {
    throw new TenantError('bad_request', 'limits is an object of limit names to whole numbers (or null for the server\'s default)')
  }
  for (const [name, value] of Object.entries(change)) {
    if (!(tenant_limit_names as readonly string[]).includes(name)) {
      throw new TenantError('bad_request', `unknown limit ${JSON.stringify(name)}; expected one of ${tenant_limit_names.join(', ')}`)
    }
    if (value === null) continue
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > tenant_limit_value_max) {
      throw new TenantError('bad_request', `limit ${name} must be a whole number from 1 to ${tenant_limit_value_max}, or null for the server's default; got ${JSON.stringify(value)}`)
    }
  }
  return change as TenantLimitsChange
}

/** `limits` with `change` applied: nulls removed, numbers set. */
export function applyLimitsChange(limits: TenantLimits, change: TenantLimitsChange): TenantLimits {
  const out: TenantLimits = { ...limits }
  for (const name of tenant_limit_names) {
    const value = change[name]
    if (value === null) delete out[name]
    else if (value !== undefined) out[name] = value
  }
  return out
}

/**
 * What applies to a tenant: its settings over the server's defaults, the statement
 * limits never above the server's. A name absent from both has no limit.
 */
export function effectiveLimits(server: TenantLimits, tenant: TenantLimits | undefined): TenantLimits {
  if (tenant === undefined) return server
  const out: TenantLimits = { ...server, ...tenant }
  for (const name of statement_limit_names) {
    const cap = server[name]
    const own = tenant[name]
    if (cap !== undefined && own !== undefined) out[name] = Math.min(cap, own)
  }
  return out
}
