import { CodedError } from '../coded-error.js'

// Failures of tenant operations and of the rules every tenant call obeys (rules.ts),
// each with the stable code the HTTP layer maps to a status (docs/api.md, errors).
export type TenantErrorCode =
  | 'bad_request'
  | 'unknown_tenant'
  | 'unknown_snapshot'
  | 'unknown_token'
  | 'tenant_exists'
  | 'snapshot_exists'
  | 'tenant_suspended'
  | 'unknown_collection'
  | 'conflict'

export class TenantError extends CodedError<TenantErrorCode> {}
