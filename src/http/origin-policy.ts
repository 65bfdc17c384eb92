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
//
// Every request is judged, so the Host and Origin values found allowed are remembered
// as sent (at most allowed_header_values_max of each, the oldest going first): a known
// one costs a map lookup, not a parse. Only allowed values are kept (a refusal is not
// the common case, and a client sending many names fills nothing), and they are
// forgotten when the listen address changes. For a wildcard listener the interfaces
// are read when a name is first judged: an address allowed then stays allowed.
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { allowed_header_values_max } from '../limits.js'

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
  /** Host and Origin header values found allowed, as sent, for the address they were judged against. */
  readonly #hostsSeen = new Set<string>()
  readonly #originsSeen = new Set<string>()
  /** The listen address and port they were judged against (none: not listening). */
  #seenAddress: string | null = null
  #seenPort = 0

  /** `address` is read when first needed: the server is not listening yet when built. */
  constructor(address: () => AddressInfo | null, consoleOrigins: readonly string[], allowedHosts: readonly string[]) {
    this.#address = address
    this.#consoleOrigins = new Set(consoleOrigins.map((o) => normaliseOrigin(o) ?? o))
    this.#allowedHosts = new Set(allowedHosts.map((h) => normaliseHostName(h) ?? h))
  }

  /** How many allowed Host and Origin values are remembered now. */
  get remembered(): { hosts: number; origins: number } {
    return { hosts: this.#hostsSeen.size, origins: this.#originsSeen.size }
  }

  /** Whether a `Host` header value names this server. */
  hostAllowed(header: string | undefined): boolean {
    if (header === undefined) return false
    return this.#remembered(this.#hostsSeen, header) || this.#remember(this.#hostsSeen, header, this.#judgeHost(header))
  }

  /** Whether an `Origin` header value may call this server. */
  originAllowed(header: string): boolean {
    return this.#remembered(this.#originsSeen, header) || this.#remember(this.#originsSeen, header, this.#judgeOrigin(header))
  }

  #remembered(seen: Set<string>, header: string): boolean {
    const address = this.#address()
    const listen = address?.address ?? null
    const port = address?.port ?? 0
    if (listen !== this.#seenAddress || port !== this.#seenPort) {
      this.#hostsSeen.clear()
      this.#originsSeen.clear()
      this.#seenAddress = listen
      this.#seenPort = port
    }
    return seen.has(header)
  }

  #remember(seen: Set<string>, header: string, allowed: boolean): boolean {
    if (!allowed) return false
    if (seen.size >= allowed_header_values_max) {
      const oldest = seen.values().next().value
      if (oldest !== undefined) seen.delete(oldest)
    }
    seen.add(header)
    return true
  }

  #judgeHost(header: string): boolean {
    const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(header)
    if (match === null) return false
    const name = normaliseHostName(match[1] as string)
    if (name === null) return false
    const port = match[2]
    return (port === undefined || this.#portMatches(Number(port))) && this.#nameAllowed(name)
  }

  #judgeOrigin(header: string): boolean {
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
