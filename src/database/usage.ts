// One tenant's usage report (docs/operations.md, "Isolation"): what its statements used
// (src/isolation/usage.ts), what it holds (src/txn/live-usage.ts) and the limits that
// apply to it, its own over the server's defaults.
import type { TenantUsage } from '../isolation/index.js'
import type { TenantLimits } from '../tenants/index.js'
import type { DatabaseParts } from './parts.js'

export interface TenantUsageReport extends TenantUsage {
  tenant: string
  /** Key and value bytes of its rows and index entries, and its rows, after every commit so far. */
  live_bytes: number
  live_rows: number
  /** The limits that apply: its own settings over the server's defaults (absent: none). */
  limits: TenantLimits
  /** Its own settings alone. */
  own_limits: TenantLimits
}

export function usageReport(parts: DatabaseParts, tenant: string, own: TenantLimits | undefined): TenantUsageReport {
  const { governor } = parts.runner
  const held = parts.committer.live.current(tenant)
  return { tenant, ...governor.usage.get(tenant), live_bytes: held.bytes, live_rows: held.rows, limits: governor.limitsOf(own), own_limits: own ?? {} }
}
