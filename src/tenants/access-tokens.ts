// Tenant tokens in the catalog (docs/format.md, "Tenant catalog"; docs/operations.md,
// "Tenant tokens"). Only the SHA-256 of a token is stored, never the token; the
// entries live in the engine tree `catalog` beside the tenants, so they are durable,
// versioned and copied by a backup like every tree:
//
// | key                          | value                                                  |
// |------------------------------|--------------------------------------------------------|
// | `token/<sha256 hex>`         | AccessTokenRecord (UTF-8 JSON)                         |
// | `token-of/<tenant>/<id>`     | the token's SHA-256 hex: one entry per tenant it opens |
// | `token-used/<sha256 hex>`    | its last use, ISO-8601 (written lazily, see below)     |
//
// `token-used` is written outside conflict checks, at most once a minute and when the
// server closes (the HTTP layer keeps the newest use in memory meanwhile), so using a
// token never turns a read into a commit, and a revocation never loses a race to it.
//
// A fork copies a tenant's trees, never these entries: a fork starts with no token,
// except the admin token that forked it (forks, below). Deleting a tenant revokes the
// tokens issued for it and takes it out of every token that forked it (revokeTenantTokens).
import { createHash, randomBytes } from 'node:crypto'
import { signalKey } from '../mvcc/index.js'
import { TxnView, type Snapshot } from '../txn/index.js'
import { access_token_lookups_per_snapshot_max, access_token_random_bytes } from '../limits.js'
import { catalog_tree, snapshotMemo } from './catalog.js'
import type { TokenScope } from './token-scopes.js'

export { token_scopes, type TokenScope } from './token-scopes.js'

export interface AccessTokenRecord {
  /** Names the token in listings and revocations; not a secret, but never logged. */
  id: string
  /** The tenant the token was issued for. */
  tenant: string
  scope: TokenScope
  name: string | null
  created_at: string
  /** ISO-8601, or null for a token that does not expire. */
  expires_at: string | null
  /** Tenants this (admin) token created by forking: it administers them too. */
  forks: string[]
}

/** A new token: `tdb_` and 32 random bytes, base64url (printable, no spaces: it fits a header and a query string). */
export function newAccessToken(): string {
  return `tdb_${randomBytes(access_token_random_bytes).toString('base64url')}`
}

/** A new token id: 16 hex digits, random (ids are never reused). */
export function newTokenId(): string {
  return randomBytes(8).toString('hex')
}

/** The SHA-256 of a presented token, as the catalog keys it: 64 lowercase hex digits. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

const tokenKey = (hash: string) => Buffer.from(`token/${hash}`)
const tokenOfKey = (tenant: string, id: string) => Buffer.from(`token-of/${tenant}/${id}`)
const usedKey = (hash: string) => Buffer.from(`token-used/${hash}`)

/**
 * What issuing a token for `tenant` signals and a delete of `tenant` depends on: a
 * delete never misses a token issued meanwhile (it would outlive its tenant).
 */
export const tenantTokensKey = (tenant: string) => signalKey(`tokens ${tenant}`)

/** Every tenant the token opens: the one it was issued for, and its forks. */
export function tenantsOpened(record: AccessTokenRecord): string[] {
  return [record.tenant, ...record.forks]
}

export function readAccessToken(view: TxnView | Snapshot, hash: string): AccessTokenRecord | null {
  const value = view.get(catalog_tree, tokenKey(hash))
  return value === null ? null : (JSON.parse(value.toString('utf8')) as AccessTokenRecord)
}

/**
 * readAccessToken of a snapshot, remembered for the snapshot's life (catalog.ts,
 * snapshotMemo): requests with the same token between commits cost one lookup. Frozen (shared).
 */
export const readAccessTokenCached = snapshotMemo(access_token_lookups_per_snapshot_max, (snapshot, hash): Readonly<AccessTokenRecord> | null => {
  const record = readAccessToken(snapshot, hash)
  if (record !== null) Object.freeze(Object.freeze(record).forks)
  return record
})

/** Writes the record and its `token-of` entry for every tenant it opens. */
export function writeAccessToken(view: TxnView, hash: string, record: AccessTokenRecord): void {
  view.put(catalog_tree, tokenKey(hash), Buffer.from(JSON.stringify(record)))
  for (const tenant of tenantsOpened(record)) view.put(catalog_tree, tokenOfKey(tenant, record.id), Buffer.from(hash))
}

/** Removes the token: its record, its `token-of` entries and its last use. */
export function removeAccessToken(view: TxnView, hash: string, record: AccessTokenRecord): void {
  view.delete(catalog_tree, tokenKey(hash))
  for (const tenant of tenantsOpened(record)) view.delete(catalog_tree, tokenOfKey(tenant, record.id))
  view.delete(catalog_tree, usedKey(hash))
}

/** The tokens that open `tenant` (issued for it, or forks of it by their admin token), with their hashes. */
export function listTenantTokens(view: TxnView | Snapshot, tenant: string): Array<{ hash: string; record: AccessTokenRecord }> {
  const snapshot = view instanceof TxnView ? view.snapshot : view
  const lower = Buffer.from(`token-of/${tenant}/`)
  const upper = Buffer.from(`token-of/${tenant}0`)
  const found: Array<{ hash: string; record: AccessTokenRecord }> = []
  for (const [, value] of snapshot.scan(catalog_tree, { lower, upper, upperInclusive: false })) {
    const hash = value.toString('utf8')
    // Read through the view: an entry this transaction removed is gone.
    const record = readAccessToken(view, hash)
    if (record !== null) found.push({ hash, record })
  }
  return found
}

/**
 * In the commit that deletes `tenant`: the tokens issued for it are revoked, and the
 * tokens that forked it no longer open it. A token issued for a tenant of the same
 * name later is a new token: nothing of these survives.
 */
export function revokeTenantTokens(view: TxnView, tenant: string): number {
  let revoked = 0
  for (const { hash, record } of listTenantTokens(view, tenant)) {
    if (record.tenant === tenant) {
      removeAccessToken(view, hash, record)
      revoked += 1
    } else {
      view.delete(catalog_tree, tokenOfKey(tenant, record.id))
      view.put(catalog_tree, tokenKey(hash), Buffer.from(JSON.stringify({ ...record, forks: record.forks.filter((f) => f !== tenant) })))
    }
  }
  view.dependOn(tenantTokensKey(tenant))
  return revoked
}

/** In the commit of a fork by an admin token: the token administers the new tenant too. */
export function grantFork(view: TxnView, hash: string, target: string): void {
  const record = readAccessToken(view, hash)
  // Revoked while the fork ran: the fork goes on (the service token could make it), ungranted.
  if (record === null) return
  writeAccessToken(view, hash, { ...record, forks: [...record.forks.filter((f) => f !== target), target] })
}

export function readLastUsed(view: TxnView | Snapshot, hash: string): string | null {
  const value = view.get(catalog_tree, usedKey(hash))
  return value === null ? null : value.toString('utf8')
}

/**
 * Records a last use, outside conflict checks: it never makes a revocation or
 * another commit fail. A use recorded after its token was revoked leaves an entry
 * the caller removes once it sees the token gone (removeLastUsed).
 */
export function writeLastUsed(view: TxnView, hash: string, at: string): void {
  view.putOutsideConflicts(catalog_tree, usedKey(hash), Buffer.from(at))
}

export function removeLastUsed(view: TxnView, hash: string): void {
  view.delete(catalog_tree, usedKey(hash))
}
