// Where the API is and the token to reach it. Both live in sessionStorage
// (docs/operations.md, "The operator console"): they last as long as the tab and never reach disk in another tab or session.
const token_key = 'tenantdb.console.token'
const base_key = 'tenantdb.console.api_base'

/** The page's own origin: the default API base when the console is served by the server. */
export function ownOrigin(): string {
  return window.location.origin
}

/** "http://host:port" without a trailing slash or path; throws on anything else. */
export function normaliseBase(text: string): string {
  const url = new URL(text.trim())
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('the API base must start with http:// or https://')
  return url.origin
}

export class Settings {
  get token(): string | null {
    return sessionStorage.getItem(token_key)
  }

  get apiBase(): string {
    return sessionStorage.getItem(base_key) ?? ownOrigin()
  }

  save(apiBase: string, token: string): void {
    sessionStorage.setItem(base_key, apiBase)
    sessionStorage.setItem(token_key, token)
  }

  forgetToken(): void {
    sessionStorage.removeItem(token_key)
  }
}
