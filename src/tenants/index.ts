export { runTenantOp, requireActive, requireTenant, tenantTrees, type TenantOpRequest, type OpResult } from './ops.js'
export { listTenants, listSnapshots, readTenant, readTenantCached, writeTenant, type TenantRecord, type SnapshotRecord } from './catalog.js'
export { TenantError, type TenantErrorCode } from './errors.js'
export { checkName, default_tenant, name_pattern, pinName } from './names.js'
