// Commands that talk to a running server (`backup --url`, `query --url`, `token --url`):
// its address (what serve prints, with or without /api/v1) and the service token
// (--token, else SERVICE_TOKEN), checked as usage; every request then goes through
// tenantdb's client (src/client/, docs/client.md), whose one error, TenantdbError, the
// commands turn into their messages. A connection that fails says which server.
import { connect, TenantdbError, type Client } from '../client/index.js'
import { operator_answer_wait_ms } from '../limits.js'
import { UsageError } from './usage-error.js'

export interface Server {
  /** `http://host:port` (and any path before /api/v1), without a trailing slash: the client's base URL. */
  url: string
  /** `http://host:port/api/v1`, as messages name the server. */
  api: string
  token: string
}

/** The server at `url` with the token given or from SERVICE_TOKEN; a usage error when either is missing or wrong. */
export function serverAt(url: string, token: string | undefined, env: NodeJS.ProcessEnv): Server {
  const chosen = token ?? env.SERVICE_TOKEN
  if (chosen === undefined || chosen === '') throw new UsageError('--url needs the service token: --token TOKEN, or SERVICE_TOKEN')
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new UsageError(`--url ${url} is not a URL (e.g. http://127.0.0.1:7070)`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--url ${url} is not an http:// or https:// URL`)
  const base = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`
  return { url: base, api: `${base}/api/v1`, token: chosen }
}

/** A client of the server; `reached` names the server when it cannot be reached. */
export async function clientOf(server: Server): Promise<Client> {
  return connect({ url: server.url, token: server.token, timeout_ms: operator_answer_wait_ms })
}

/**
 * Runs `call`; a server that could not be reached fails with a sentence naming it (the
 * client's own error stays the cause), any other error as it is.
 */
export async function reached<T>(server: Server, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (!(err instanceof TenantdbError) || err.code !== 'network_error') throw err
    throw new Error(`cannot reach ${server.api} (${rootCause(err)}); is the server running?`, { cause: err })
  }
}

/** The innermost reason of a failed connection (`connect ECONNREFUSED 127.0.0.1:7070`), past fetch's own "fetch failed". */
function rootCause(err: Error): string {
  let reason: unknown = err
  while (reason instanceof Error && reason.cause instanceof Error) reason = reason.cause
  return reason instanceof Error ? reason.message : String(reason)
}
