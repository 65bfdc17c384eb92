// Tenant tokens for tests, issued through the real store (src/database/access-tokens.ts)
// of a real database: one of each scope, one of another tenant, an expired one, a
// revoked one, and one of a tenant that was then deleted.
import { AccessTokens, type Database, type TokenScope } from '../../src/database/index.js'

export interface TokenSet {
  read: string
  write: string
  admin: string
  /** An admin token of `other`, a tenant that exists. */
  other: string
  /** Issued for the tenant, expired. */
  expired: string
  /** Issued for the tenant, then revoked. */
  revoked: string
  /** Issued for a tenant that was then deleted. */
  deleted: string
}

export async function issue(db: Database, tenant: string, scope: TokenScope, options: { name?: string; expires_in_s?: number; now?: Date } = {}): Promise<{ token: string; id: string }> {
  const { now, ...request } = options
  const issued = await AccessTokens.of(db).issue(tenant, { scope, ...request }, now)
  return { token: issued.token, id: issued.id }
}

/** Every kind of tenant token for `tenant`; creates `other` and a deleted tenant on the way. */
export async function tokenSet(db: Database, tenant: string, other: string): Promise<TokenSet> {
  await db.ops({ op: 'create', name: other }).catch(() => undefined)
  const gone = `${tenant}-gone`
  await db.ops({ op: 'create', name: gone })
  const deleted = (await issue(db, gone, 'admin')).token
  await db.ops({ op: 'delete', name: gone })
  const revoked = await issue(db, tenant, 'admin')
  await AccessTokens.of(db).revoke(tenant, revoked.id)
  return {
    read: (await issue(db, tenant, 'read')).token,
    write: (await issue(db, tenant, 'write')).token,
    admin: (await issue(db, tenant, 'admin')).token,
    other: (await issue(db, other, 'admin')).token,
    // Issued a minute ago for ten seconds: expired now, by the store's own clock.
    expired: (await issue(db, tenant, 'admin', { expires_in_s: 10, now: new Date(Date.now() - 60_000) })).token,
    revoked: revoked.token,
    deleted,
  }
}
