// Which `Host` names and which `Origin`s the server answers (docs/api.md,
// "Origins and hosts"; docs/operations.md, "Starting the server"). Refusing other hosts
// defeats DNS rebinding (a hostile name resolved to 127.0.0.1 still says its own name
// in Host); refusing other origins defeats cross-site requests a browser would send
// with the user's network position, token or not.
//
// Allowed host names: the listen address; for a loopback listener also `localhost`,
// `127.0.0.1` and `[::1]`; for a wildcard listener (0.0.0.0, ::) `localhost` and every
// address of a local interface; and each --allowed-host. A port, when given, must be
// the listening port. Allowed origins: `http://<allowed host name>:<port>` and each
// --console-origin.
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'

/** `http://host:port` with the scheme, host and port normalised, or null if not an origin. */
export function normaliseOrigin(text: string): string | null {
  try {
    const url = new URL(text)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
    if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return null
    return url.origin
  } catch {
    return null
  }
}

/** A host name or IP literal as URL normalises it (lower case, `[v6]`), or null. */
export function normaliseHostName(text: string): string | null {
  // A bare IPv6 address (an interface's, or --allowed-host ::1) gets its brackets.
  const literal = /^[0-9A-Fa-f:.]+$/.test(text) && text.includes(':') ? `[${text}]` : text
  if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)$/.test(literal)) return null
  try {
    const url = new URL(`http://${literal}/`)
    return url.hostname === '' ? null : url.hostname
  } catch {
    return null
  }
}

const wildcard = new Set(['0.0.0.0', '[::]'])

function isLoopback(name: string): boolean {
  return name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name)
}

function interfaceNames(): string[] {
  const names: string[] = []
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      const name = normaliseHostName(entry.address)
      if (name !== null) names.push(name)
    }
  }
  return names
}

export class OriginPolicy {
  readonly #address: () => AddressInfo | null
  readonly #consoleOrigins: ReadonlySet<string>
  readonly #allowedHosts: ReadonlySet<string>

  /** `address` is read when first needed: the server is not listening yet when built. */
  constructor(address: () => AddressInfo | null, consoleOrigins: readonly string[], allowedHosts: readonly string[]) {
    this.#address = address
    this.#consoleOrigins = new Set(consoleOrigins.map((o) => normaliseOrigin(o) ?? o))
    this.#allowedHosts = new Set(allowedHosts.map((h) => normaliseHostName(h) ?? h))
  }

  /** Whether a `Host` header value names this server. */
  hostAllowed(header: string | undefined): boolean {
    if (header === undefined) return false
    const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(header)
    if (match === null) return false
    const name = normaliseHostName(match[1] as string)
    if (name === null) return false
    const port = match[2]
    return (port === undefined || this.#portMatches(Number(port))) && this.#nameAllowed(name)
  }

  /** Whether an `Origin` header value may call this server. */
  originAllowed(header: string): boolean {
    const origin = normaliseOrigin(header)
    if (origin === null) return false
    if (this.#consoleOrigins.has(origin)) return true
    const url = new URL(origin)
    if (url.protocol !== 'http:') return false
    return this.#portMatches(url.port === '' ? 80 : Number(url.port)) && this.#nameAllowed(url.hostname)
  }

  #portMatches(port: number): boolean {
    const address = this.#address()
    return address !== null && address.port === port
  }

  #nameAllowed(name: string): boolean {
    if (this.#allowedHosts.has(name)) return true
    const address = this.#address()
    if (address === null) return false
    const listen = normaliseHostName(address.address)
    if (listen === null) return false
    if (name === listen) return true
    if (isLoopback(listen)) return name === 'localhost' || name === '127.0.0.1' || name === '[::1]'
    if (wildcard.has(listen)) return name === 'localhost' || interfaceNames().includes(name)
    return false
  }
}
