// `tenantdb serve`'s isolation flags (docs/operations.md, "Isolation"): every tenant's
// default limits (`--tenant-limit NAME=N`, repeatable), how long a statement waits for
// its budget, and how many tenants the metrics name.
import { budget_wait_ms_max, metrics_tenants_default, metrics_tenants_max } from '../limits.js'
import { checkLimitsChange, type TenantLimits } from '../tenants/index.js'
import { envValue, flagList } from './env.js'
import { UsageError } from './usage-error.js'

export const isolation_flags = {
  'tenant-limit': { type: 'string' as const, multiple: true as const, default: [] as string[] },
  'budget-wait-ms': { type: 'string' as const },
  'metrics-tenants': { type: 'string' as const },
}

export interface IsolationServeOptions {
  /** Limits of every tenant that sets none of its own. */
  tenantLimits: TenantLimits
  budgetWaitMsMax: number
  /** Tenants the metrics name one by one; the rest are `other`. */
  metricsTenants: number
}

export function parseIsolationOptions(values: { 'tenant-limit'?: string[]; 'budget-wait-ms'?: string; 'metrics-tenants'?: string }, env: NodeJS.ProcessEnv): IsolationServeOptions {
  const settings: Record<string, number> = {}
  for (const item of flagList(values['tenant-limit'] ?? [], env, 'TENANTDB_TENANT_LIMITS', ',')) {
    const match = /^([a-z_]+)=(\d{1,16})$/.exec(item)
    if (match === null) throw new UsageError(`--tenant-limit takes NAME=N, such as commits_per_s=500, got '${item}'`)
    settings[match[1] as string] = Number(match[2])
  }
  let tenantLimits: TenantLimits
  try {
    tenantLimits = checkLimitsChange(settings) as TenantLimits
  } catch (err) {
    throw new UsageError(`--tenant-limit: ${(err as Error).message}`)
  }
  return {
    tenantLimits,
    budgetWaitMsMax: wholeNumber('--budget-wait-ms', values['budget-wait-ms'] ?? envValue(env, 'TENANTDB_BUDGET_WAIT_MS'), budget_wait_ms_max, 0, 600_000),
    metricsTenants: wholeNumber('--metrics-tenants', values['metrics-tenants'] ?? envValue(env, 'TENANTDB_METRICS_TENANTS'), metrics_tenants_default, 0, metrics_tenants_max),
  }
}

function wholeNumber(flag: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback
  const n = Number(text)
  if (!/^\d{1,7}$/.test(text) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${text}'`)
  return n
}
