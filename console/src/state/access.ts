// What the console's token opens (docs/api.md, "Access"), as GET /api/v1/access says:
// the service token everything, a tenant token its scope on its tenants. The pages show
// only what it opens: a tenant token sees its tenants, no server-wide page, and only the
// operations its scope allows; issuing and revoking tokens needs the service token.
import type { Access, TokenScope } from '../api/types.js'

export function isService(access: Access | null): boolean {
  return access?.credential === 'service'
}

/** The tenants a tenant token opens; null for the service token (every tenant: list them). */
export function openedTenants(access: Access | null): string[] | null {
  return access?.credential === 'tenant' ? access.tenants : null
}

/** Whether the token may run tenant operations (snapshot, fork, suspend, resume, compact). */
export function administers(access: Access | null): boolean {
  return access?.credential === 'service' || (access?.credential === 'tenant' && access.scope === 'admin')
}

/** How the top bar names the credential. */
export function accessLabel(access: Access | null): string {
  if (access === null) return ''
  if (access.credential === 'service') return 'service token'
  const tenants = access.tenants.length === 1 ? access.tenants[0] : `${access.tenants.length} tenants`
  return `${access.scope} token · ${tenants}`
}

export const scope_help: Readonly<Record<TokenScope, string>> = {
  read: 'queries that read, collections, schema, snapshots, diffs, the tail',
  write: 'read, and queries that write',
  admin: 'write, and snapshot, fork, suspend, resume, compact',
}
