// Tenants: the catalog, the operations on tenants, and the rules every call on a
// tenant obeys (rules.ts).
export { runTenantOp, tenantTrees, type OpOptions, type OpResult, type TenantOpContext } from './ops.js'
export { checkOpRequest, tenant_ops, type TenantOpRequest } from './op-request.js'
export { opRequestOf } from './op-statement.js'
export { checkTokenName } from './token-name.js'
export { requireActive, requireCollection, requireQueryable, requireTenant } from './rules.js'
export { listTenants, listSnapshots, readTenant, readTenantCached, writeTenant, type TenantRecord, type SnapshotRecord } from './catalog.js'
export { applyLimitsChange, checkLimitsChange, effectiveLimits, statement_limit_names, tenant_limit_names, type TenantLimitName, type TenantLimits, type TenantLimitsChange } from './tenant-limits.js'
export { TenantError, type TenantErrorCode } from './errors.js'
export { checkName, default_tenant, name_pattern, pinName, splitSource } from './names.js'
export {
  grantFork, listTenantTokens, newAccessToken, newTokenId, tokenHash, readAccessToken, readAccessTokenCached, readLastUsed, removeAccessToken, removeLastUsed,
  revokeTenantTokens, tenantsOpened, tenantTokensKey, token_scopes, writeAccessToken, writeLastUsed,
  type AccessTokenRecord, type TokenScope,
} from './access-tokens.js'
