// The one way in (docs/client.md, "Connecting"): `connect` with `url` or `urls` talks
// to a server or cluster over HTTP; with `path` it opens the database directory in this
// process. Both give the same Client, or with `tenant` that tenant's object directly
// (one interface whichever is behind it, as @libsql/client's createClient does).
import { client_request_timeout_ms } from '../limits.js'
import type { EmbeddedClient } from './embedded-client.js'
import { refused } from './refusal.js'
import { RemoteClient } from './remote-client.js'
import type { FetchFunction } from './transport.js'
import type { Client, ConnectedTenant } from './types.js'

export interface RemoteOptions {
  /** The server's base URL (`http://127.0.0.1:7070`). */
  url?: string
  /** Several nodes of one cluster (docs/client.md, "Clusters"). */
  urls?: readonly string[]
  /** The service token or a tenant token (docs/api.md, "Access"). */
  token: string
  /** Return this tenant's object instead of the client. */
  tenant?: string
  /** How long a call waits for an answer (default client_request_timeout_ms, 30 s). */
  timeout_ms?: number
  /** Another fetch (a runtime's own, one with a proxy agent); default globalThis.fetch. */
  fetch?: FetchFunction
}

export interface EmbeddedOptions {
  /** The database directory, opened (and created) in this process: Node only. */
  path: string
  /** The schema files (`.eel`). */
  schema?: string | readonly string[]
  tenant?: string
}

export type ConnectOptions = RemoteOptions | EmbeddedOptions

// A name the bundler cannot read: the embedded database (native code) stays out of a
// browser build, and is loaded only when `path` asks for it.
const embedded_module = './embedded-client.js'

export async function connect(options: ConnectOptions & { tenant: string }): Promise<ConnectedTenant>
export async function connect(options: ConnectOptions): Promise<Client>
export async function connect(options: ConnectOptions): Promise<Client | ConnectedTenant> {
  const client = 'path' in options && options.path !== undefined ? await embedded(options) : remote(options as RemoteOptions)
  if (options.tenant === undefined) return client
  const tenant = client.tenant(options.tenant)
  return Object.assign(tenant, { client, close: () => client.close() })
}

function remote(options: RemoteOptions): Client {
  if (typeof options.token !== 'string' || options.token === '') throw refused('unauthorized', 'connect needs a token (the service token or a tenant token)')
  const urls = options.urls ?? (options.url === undefined ? [] : [options.url])
  const timeout_ms = options.timeout_ms ?? client_request_timeout_ms
  if (!(timeout_ms > 0)) throw refused('bad_request', `timeout_ms must be more than 0, got ${String(timeout_ms)}`)
  const fetchFn: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  return new RemoteClient({ urls, token: options.token, timeout_ms, fetch: fetchFn })
}

async function embedded(options: EmbeddedOptions): Promise<Client> {
  const { openEmbedded } = (await import(/* webpackIgnore: true */ /* @vite-ignore */ embedded_module)) as { openEmbedded: (path: string, schema: readonly string[]) => Promise<EmbeddedClient> }
  const schema = options.schema === undefined ? [] : typeof options.schema === 'string' ? [options.schema] : options.schema
  return openEmbedded(options.path, schema)
}
