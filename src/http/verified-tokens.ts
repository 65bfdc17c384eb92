// The tenant tokens the server verified lately (docs/operations.md, "Tenant tokens"),
// so that a request with a known token makes no catalog lookup. Keyed by the token's
// SHA-256 (never the token: a lookup by hash tells nothing of it), an entry holds what
// the catalog said the token opens, with its expiry. An entry is served only
//   - while the catalog generation (AccessTokens.generation) is the one the entries
//     were verified at: any catalog commit (an issue, a revocation, a tenant's delete
//     or fork, a flush of last uses) drops them all, so a revoked token fails on the
//     very next request, as it did when every request looked it up;
//   - before the token expires: an expired entry is dropped and the catalog answers
//     (`expired`), as for a token never seen.
// Only valid tokens are kept (a wrong one is looked up every time, and counted by the
// throttle), at most verified_tokens_entries_max of them: the oldest goes first.
import type { TokenGrant } from '../database/index.js'
import { verified_tokens_entries_max } from '../limits.js'

export class VerifiedTokens {
  readonly #grants = new Map<string, TokenGrant>()
  readonly #max: number
  /** The catalog generation the entries were verified at. */
  #generation = Number.NaN

  constructor(max: number = verified_tokens_entries_max) {
    this.#max = max
  }

  /** Entries held now (expired ones included until met). */
  get size(): number {
    return this.#grants.size
  }

  /**
   * Told the catalog generation once per request, before `find` and `remember`: the
   * entries go when it is not the one they were verified at.
   */
  sync(generation: number): void {
    if (generation === this.#generation) return
    this.#grants.clear()
    this.#generation = generation
  }

  /** What the token whose SHA-256 is `hash` (hex) opens, if it was verified and has not expired by `now_ms`. */
  find(hash: string, now_ms: number): TokenGrant | undefined {
    const grant = this.#grants.get(hash)
    if (grant === undefined) return undefined
    if (grant.expires_at_ms !== null && now_ms >= grant.expires_at_ms) {
      this.#grants.delete(hash)
      return undefined
    }
    return grant
  }

  /** Keeps a grant the catalog answered `valid` at the generation last synced. */
  remember(grant: TokenGrant): void {
    if (!this.#grants.has(grant.hash) && this.#grants.size >= this.#max) {
      const oldest = this.#grants.keys().next().value
      if (oldest !== undefined) this.#grants.delete(oldest)
    }
    this.#grants.set(grant.hash, grant)
  }
}
