// The tenant tokens of an open database (docs/operations.md, "Tenant tokens"): issue,
// list, revoke, look up by the hash of a presented token, and remember last uses.
//
// Tokens are an HTTP concern, so this is not part of the embedding API: the package
// does not export it (src/index.ts); the HTTP server and the CLI reach it through
// `AccessTokens.of(db)`. Every change is one commit through the committer, like a
// tenant operation; what a token may do is decided by the HTTP layer
// (src/http/route-access.ts), which is told here only what the catalog says.
import { checkTokenName, default_tenant, listTenantTokens, newAccessToken, newTokenId, readAccessToken, readAccessTokenCached,
  readLastUsed, removeAccessToken, removeLastUsed, requireTenant, runTenantOp, tenantsOpened, tenantTokensKey,
  TenantError, token_scopes, tokenHash, writeAccessToken, writeLastUsed, type AccessTokenRecord, type OpResult,
  type TenantOpRequest, type TokenScope } from '../tenants/index.js'
import { ConflictError } from '../mvcc/index.js'
import { TxnView, type Snapshot } from '../txn/index.js'
import { access_token_expires_in_s_max, access_tokens_per_tenant_max } from '../limits.js'
import type { Database } from './database.js'
import { internalsOf } from './internals.js'
import type { DatabaseParts } from './parts.js'

export type { TokenScope } from '../tenants/index.js'

export interface IssueRequest {
  scope: TokenScope
  name?: string
  /** Seconds until it expires (1 to ten years); absent: it does not expire. */
  expires_in_s?: number
}

/**
 * A token as listed: never its secret nor its hash. `tenant` is the one it was issued
 * for (a fork's listing also shows the admin token that forked it).
 */
export type TokenListing = Omit<AccessTokenRecord, 'forks'> & { last_used_at: string | null }

/** What `issue` answers: the token itself, shown this once. */
export interface IssuedToken extends Omit<TokenListing, 'last_used_at'> {
  token: string
}

/** What a valid tenant token opens. */
export interface TokenGrant {
  /** The SHA-256 the catalog keys it by (never logged, never answered). */
  hash: string
  id: string
  scope: TokenScope
  /** The tenant it was issued for, then the tenants it forked. */
  tenants: readonly string[]
  expires_at_ms: number | null
}

/** The outcome of looking up a presented token. */
export type TokenLookup = { found: 'valid'; grant: TokenGrant } | { found: 'expired' } | { found: 'none' }

const stores = new WeakMap<object, AccessTokens>()

export class AccessTokens {
  readonly #parts: DatabaseParts
  /** Last uses not yet written: hash → ms since the epoch. */
  readonly #used = new Map<string, number>()
  #flushing: Promise<void> = Promise.resolve()

  private constructor(parts: DatabaseParts) {
    this.#parts = parts
  }

  /** The token store of `db` (one per open database). */
  static of(db: Database): AccessTokens {
    let store = stores.get(db)
    if (store === undefined) {
      store = new AccessTokens(internalsOf(db))
      stores.set(db, store)
    }
    return store
  }

  /** Issues a token for `tenant`; the answer holds the token, which is never stored nor shown again. */
  async issue(tenant: string, request: IssueRequest, now: Date = new Date()): Promise<IssuedToken> {
    const { scope, name = null, expires_in_s } = checkIssueRequest(request)
    const { committer } = this.#parts
    const snapshot = committer.lease()
    try {
      const view = new TxnView(snapshot)
      requireTenant(view, tenant)
      if (listTenantTokens(view, tenant).length >= access_tokens_per_tenant_max) {
        throw new TenantError('bad_request', `tenant '${tenant}' holds ${access_tokens_per_tenant_max} tokens, the most it may; revoke some first`)
      }
      const token = newAccessToken()
      const record: AccessTokenRecord = {
        id: newTokenId(),
        tenant,
        scope,
        name,
        created_at: now.toISOString(),
        expires_at: expires_in_s === undefined ? null : new Date(now.getTime() + expires_in_s * 1000).toISOString(),
        forks: [],
      }
      writeAccessToken(view, tokenHash(token), record)
      // A delete of the tenant racing this depends on it, so one of the two fails.
      view.conflictOn(tenantTokensKey(tenant))
      await commit(this.#parts, view, tenant).catch((err: unknown) => { throw asTenantConflict(err, 'issuing the token') })
      const { forks: _forks, ...shown } = record
      return { token, ...shown }
    } finally {
      committer.unlease(snapshot)
    }
  }

  /** The tokens that open `tenant`, oldest first. */
  list(tenant: string): TokenListing[] {
    const snapshot = this.#parts.committer.head()
    requireTenant(snapshot, tenant)
    return listTenantTokens(snapshot, tenant)
      .map(({ hash, record }) => ({
        id: record.id,
        tenant: record.tenant,
        scope: record.scope,
        name: record.name,
        created_at: record.created_at,
        expires_at: record.expires_at,
        last_used_at: this.#lastUsed(snapshot, hash),
      }))
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
  }

  /**
   * Revokes token `id` of `tenant` (one that opens it): it is refused from the next
   * request on, wherever it is presented. A revocation that loses a race with another
   * change of the same token is retried: revoking is always safe to repeat.
   */
  async revoke(tenant: string, id: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.#revokeOnce(tenant, id)
        return
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt === 3) throw asTenantConflict(err, 'revoking the token')
      }
    }
  }

  async #revokeOnce(tenant: string, id: string): Promise<void> {
    const { committer } = this.#parts
    const snapshot = committer.lease()
    try {
      const view = new TxnView(snapshot)
      requireTenant(view, tenant)
      const found = listTenantTokens(view, tenant).find(({ record }) => record.id === id)
      if (found === undefined) throw new TenantError('unknown_token', `tenant '${tenant}' has no token '${id}'`)
      removeAccessToken(view, found.hash, found.record)
      this.#used.delete(found.hash)
      await commit(this.#parts, view, found.record.tenant)
    } finally {
      committer.unlease(snapshot)
    }
  }

  /**
   * A number that changes whenever what a token opens may have changed (issue, revoke,
   * a tenant's delete or fork: every catalog commit, here or applied from a primary).
   * What `lookup` answered stays true while it stays the same, until the token's expiry.
   */
  get generation(): number {
    return this.#parts.committer.catalogGeneration
  }

  /** What the token whose SHA-256 is `hash` opens now, per the newest durable version. */
  lookup(hash: string, now_ms: number = Date.now()): TokenLookup {
    const record = readAccessTokenCached(this.#parts.committer.head(), hash)
    if (record === null) return { found: 'none' }
    const expires_at_ms = record.expires_at === null ? null : Date.parse(record.expires_at)
    if (expires_at_ms !== null && now_ms >= expires_at_ms) return { found: 'expired' }
    return { found: 'valid', grant: { hash, id: record.id, scope: record.scope, tenants: tenantsOpened(record), expires_at_ms } }
  }

  /**
   * Notes a use, in memory only: written by flushLastUsed (docs/operations.md, "Tenant
   * tokens"). True when it is the token's first use held here in its minute: a thread
   * that does not commit hands such a use on at once, so listings, shown to the
   * minute, see it whichever thread answers them.
   */
  used(hash: string, at_ms: number = Date.now()): boolean {
    const before = this.#used.get(hash)
    this.#used.set(hash, Math.max(at_ms, before ?? 0))
    return before === undefined || Math.floor(at_ms / 60_000) > Math.floor(before / 60_000)
  }

  /**
   * Takes the last uses held in memory, leaving none: a thread that does not commit
   * hands them to the one that does, which notes them with `used` (src/http/threads/).
   */
  takeUses(): Array<[string, number]> {
    const uses = [...this.#used]
    this.#used.clear()
    return uses
  }

  /**
   * Writes the last uses held in memory, in one commit outside conflict checks (so it
   * never fails a revocation), for the tokens that still exist. Calls run one at a
   * time. A failed write keeps the uses for the next call.
   */
  flushLastUsed(): Promise<void> {
    const run = this.#flushing.then(() => this.#flush())
    this.#flushing = run.catch(() => {})
    return run
  }

  async #flush(): Promise<void> {
    if (this.#used.size === 0) return
    const pending = new Map(this.#used)
    this.#used.clear()
    const { committer } = this.#parts
    const snapshot = committer.lease()
    const written: string[] = []
    try {
      const view = new TxnView(snapshot)
      for (const [hash, at_ms] of pending) {
        if (readAccessToken(view, hash) === null) continue
        writeLastUsed(view, hash, new Date(at_ms).toISOString())
        written.push(hash)
      }
      if (written.length > 0) await commit(this.#parts, view, default_tenant)
    } catch (err) {
      for (const [hash, at_ms] of pending) this.used(hash, at_ms)
      throw err
    } finally {
      committer.unlease(snapshot)
    }
    await this.#removeStale(written)
  }

  /** A use written after its token was revoked (the revocation committed between the flush's read and its commit) is removed. */
  async #removeStale(written: readonly string[]): Promise<void> {
    const { committer } = this.#parts
    const snapshot = committer.lease()
    try {
      const view = new TxnView(snapshot)
      for (const hash of written) {
        if (readAccessToken(view, hash) === null && readLastUsed(view, hash) !== null) removeLastUsed(view, hash)
      }
      // A revocation racing this removed the same entries: nothing is left to do.
      if (view.opCount > 0) await commit(this.#parts, view, default_tenant).catch((err: unknown) => { if (!(err instanceof ConflictError)) throw err })
    } finally {
      committer.unlease(snapshot)
    }
  }

  /**
   * A tenant operation asked for with a tenant token (its rules were checked by the
   * HTTP layer): a fork grants the token the new tenant in the fork's own commit.
   */
  ops(request: TenantOpRequest, grant: TokenGrant): Promise<OpResult> {
    return runTenantOp(this.#parts.ops, request, request.op === 'fork' ? { forkGrantedTo: grant.hash } : {})
  }

  #lastUsed(snapshot: Snapshot, hash: string): string | null {
    const inMemory = this.#used.get(hash)
    const stored = readLastUsed(snapshot, hash)
    if (inMemory === undefined) return stored
    const memory = new Date(inMemory).toISOString()
    return stored === null || memory > stored ? memory : stored
  }
}

/** One commit of the catalog through the committer. */
async function commit(parts: DatabaseParts, view: TxnView, tenant: string): Promise<void> {
  await parts.committer.commit(view, tenant, 'catalog')
}

/**
 * A lost race as the tenant error users meet. The conflict's key is left out: it may
 * name a token's catalog entry, and a token's hash is never shown.
 */
function asTenantConflict(err: unknown, what: string): unknown {
  return err instanceof ConflictError
    ? new TenantError('conflict', `${what} lost a race with a concurrent change to the same tenant; nothing was changed, and retrying is safe`)
    : err
}

/** The request, checked as the embedding API checks a tenant operation: whatever is wrong is `bad_request`, saying what. */
export function checkIssueRequest(request: unknown): { scope: TokenScope; name?: string; expires_in_s?: number } {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new TenantError('bad_request', 'a token request is an object {"scope": "read"|"write"|"admin", "name": "…", "expires_in_s": N}')
  }
  const { scope, name, expires_in_s } = request as Record<string, unknown>
  if (typeof scope !== 'string' || !(token_scopes as readonly string[]).includes(scope)) {
    throw new TenantError('bad_request', `scope must be one of ${token_scopes.join(', ')}, got ${JSON.stringify(scope ?? null)}`)
  }
  if (name !== undefined) checkTokenName(name)
  if (expires_in_s !== undefined && (typeof expires_in_s !== 'number' || !Number.isSafeInteger(expires_in_s) || expires_in_s < 1 || expires_in_s > access_token_expires_in_s_max)) {
    throw new TenantError('bad_request', `expires_in_s must be an integer from 1 to ${access_token_expires_in_s_max}, got ${JSON.stringify(expires_in_s)}`)
  }
  return { scope: scope as TokenScope, ...(name === undefined ? {} : { name: name as string }), ...(expires_in_s === undefined ? {} : { expires_in_s: expires_in_s as number }) }
}
