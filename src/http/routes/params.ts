// Checks shared by the routes beyond what their schemas say.
import type { Database } from '../../database/index.js'
import { readTenant, TenantError } from '../../tenants/index.js'

/** Routes other than query refuse a suspended tenant with 423 (docs/api.md, "Errors"). */
export function requireActiveTenant(db: Database, tenant: string): void {
  const record = readTenant(db.engine.snapshot(), tenant)
  if (record === null) throw new TenantError('unknown_tenant', `no tenant named '${tenant}'`)
  if (record.state === 'suspended') throw new TenantError('tenant_suspended', `tenant '${tenant}' is suspended; resume it first`)
}
