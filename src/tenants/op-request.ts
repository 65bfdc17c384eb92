// The shape of a tenant operation (docs/api.md, "Operations"), checked once for the
// embedding API and the HTTP route alike: any value may be passed to `db.ops`, and
// whatever is wrong with it is a TenantError `bad_request` saying what.
import { TenantError } from './errors.js'
import { checkName, splitSource } from './names.js'
import { checkLimitsChange, type TenantLimitsChange } from './tenant-limits.js'

export type TenantOpRequest =
  | { op: 'create'; name: string }
  | { op: 'fork'; name: string; target: string }
  | { op: 'snapshot'; name: string; target: string }
  /** `name` is `tenant@snapshot`: the tenant's head becomes that snapshot's version. */
  | { op: 'restore'; name: string }
  | { op: 'suspend' | 'resume' | 'delete' | 'compact'; name: string }
  /** Sets or clears limits of the tenant (tenant-limits.ts); the others keep their values. */
  | { op: 'limit'; name: string; limits: TenantLimitsChange }

/** Every operation there is; anything else is `bad_request`. */
export const tenant_ops: ReadonlyArray<TenantOpRequest['op']> = ['create', 'fork', 'snapshot', 'restore', 'suspend', 'resume', 'delete', 'compact', 'limit']

/**
 * `request` as an operation, or a TenantError naming what is wrong: not an object, an
 * unknown `op`, a name or target that is not a string, a missing `target` of fork or
 * snapshot, a name that is no tenant or snapshot name (names.ts; fork and delete also
 * take `tenant@snapshot`, restore takes only that). The one check of an operation's
 * shape: the HTTP route runs it on the body as sent (its schema only describes it), so
 * both refuse in the same words.
 */
export function checkOpRequest(request: unknown): TenantOpRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new TenantError('bad_request', 'a tenant operation is an object {"op": "…", "name": "…", "target": "…"}')
  }
  const { op, name, target, limits } = request as { op?: unknown; name?: unknown; target?: unknown; limits?: unknown }
  if (typeof op !== 'string' || !(tenant_ops as readonly string[]).includes(op)) {
    throw new TenantError('bad_request', `unknown tenant operation ${op === undefined ? 'none' : JSON.stringify(op)}; expected one of ${tenant_ops.join(', ')}`)
  }
  if (typeof name !== 'string') throw new TenantError('bad_request', 'name must be a string')
  if ((op === 'fork' || op === 'snapshot') && target === undefined) throw new TenantError('bad_request', `${op} needs a target`)
  if (target !== undefined && typeof target !== 'string') throw new TenantError('bad_request', 'target must be a string')
  if (op === 'fork' || op === 'delete') splitSource(name)
  else if (op === 'restore') {
    if (splitSource(name)[1] === null) throw new TenantError('bad_request', `restore names a snapshot as tenant@snapshot, got ${JSON.stringify(name)}`)
  } else checkName(name, 'tenant')
  if (op === 'fork') checkName(target, 'tenant')
  if (op === 'snapshot') checkName(target, 'snapshot')
  if (op === 'limit') {
    if (limits === undefined) throw new TenantError('bad_request', 'limit needs limits, an object such as {"commits_per_s": 100}')
    checkLimitsChange(limits)
  } else if (limits !== undefined) throw new TenantError('bad_request', `only limit takes limits, not ${op}`)
  return request as TenantOpRequest
}
