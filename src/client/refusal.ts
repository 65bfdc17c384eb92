// A call the client refuses itself, before or instead of asking a server (a remote
// transaction, an operation naming no tenant, connect without a token): the code and
// status a server gives the same refusal (src/http/wire/error-codes.ts), so `status`
// undefined keeps meaning that no server answered (docs/client.md, "Errors").
import { error_statuses, type ErrorCode } from '../http/wire/error-codes.js'
import { TenantdbError } from './errors.js'

export function refused(code: ErrorCode, message: string): TenantdbError {
  return new TenantdbError(code, message, { status: error_statuses[code] })
}
