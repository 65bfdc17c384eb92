// Ends what a tenant token keeps open once the token stops opening it (docs/api.md,
// "Access"): a change tail's WebSocket, a long poll. A revocation or expiry takes effect
// on the next request by itself; a request already running is watched here instead:
// every access_token_watch_ms the watch looks each watched token up again, and ends
// the request whose token was revoked, expired, or no longer opens its tenant (its
// tenant was deleted). The timer runs only while something is watched.
import type { FastifyRequest } from 'fastify'
import type { AccessTokens } from '../database/index.js'
import { access_token_watch_ms } from '../limits.js'
import { credentialOf } from './route-access.js'

interface Watched {
  hash: string
  tenant: string
  ended: () => void
}

export class TokenWatch {
  readonly #tokens: AccessTokens
  readonly #interval_ms: number
  readonly #watched = new Set<Watched>()
  #timer: NodeJS.Timeout | undefined

  constructor(tokens: AccessTokens, interval_ms: number = access_token_watch_ms) {
    this.#tokens = tokens
    this.#interval_ms = interval_ms
  }

  /**
   * Calls `ended` once if the request's tenant token stops opening `tenant`; returns
   * the function that stops watching. A request made with the service token is not
   * watched (the service token cannot be revoked while the server runs).
   */
  watchRequest(request: FastifyRequest, tenant: string, ended: () => void): () => void {
    const credential = credentialOf(request)
    if (credential?.kind !== 'tenant') return () => {}
    const entry: Watched = { hash: credential.grant.hash, tenant, ended }
    this.#watched.add(entry)
    this.#timer ??= setInterval(() => this.#check(), this.#interval_ms).unref()
    return () => this.#unwatch(entry)
  }

  #unwatch(entry: Watched): void {
    this.#watched.delete(entry)
    if (this.#watched.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }

  #check(): void {
    const now = Date.now()
    for (const entry of [...this.#watched]) {
      let opens: boolean
      try {
        const lookup = this.#tokens.lookup(entry.hash, now)
        opens = lookup.found === 'valid' && lookup.grant.tenants.includes(entry.tenant)
      } catch {
        // The database closed: the server is stopping, and ends every request itself.
        continue
      }
      if (opens) continue
      this.#unwatch(entry)
      entry.ended()
    }
  }

  close(): void {
    this.#watched.clear()
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
  }
}
