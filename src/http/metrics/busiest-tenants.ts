// Which tenants the metrics and the health detail name one by one (docs/operations.md,
// "Metrics"): the `--metrics-tenants` busiest, by rows examined plus rows written since
// the server started (what a tenant costs the server in reads and writes alike), ties
// by name; every other tenant is summed as `other`, so the series stay bounded however
// many tenants there are. A tenant named `other` is always summed there: its name would
// otherwise be one series with the rest.
import type { TenantUsageReport } from '../../database/index.js'

/** The label of the tenants not named. */
export const other_tenants = 'other'

/** The counts of several tenants summed (no limits: they are each tenant's own). */
export type SummedUsage = Omit<TenantUsageReport, 'tenant' | 'limits' | 'own_limits'> & { tenants: number }

export interface RankedUsage {
  /** The busiest first. */
  named: TenantUsageReport[]
  other: SummedUsage
}

const summed_fields = [
  'statements', 'rows_examined', 'rows_written', 'bytes_written', 'commits', 'statement_ms', 'budget_wait_ms',
  'rate_limited', 'quota_exceeded', 'statement_limit', 'live_bytes', 'live_rows',
] as const satisfies ReadonlyArray<keyof SummedUsage>

export function busyness(usage: TenantUsageReport): number {
  return usage.rows_examined + usage.rows_written
}

/** The `count` busiest of `reports` (none for 0), and the rest summed. */
export function busiestTenants(reports: readonly TenantUsageReport[], count: number): RankedUsage {
  const ranked = reports.filter((r) => r.tenant !== other_tenants)
    .sort((a, b) => busyness(b) - busyness(a) || (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0))
  const named = ranked.slice(0, count)
  const kept = new Set(named)
  const other = Object.fromEntries([...summed_fields.map((f) => [f, 0]), ['tenants', 0]]) as SummedUsage
  for (const report of reports) {
    if (kept.has(report)) continue
    other.tenants += 1
    for (const field of summed_fields) other[field] += report[field]
  }
  return { named, other }
}
