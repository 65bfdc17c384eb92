// Commands that talk to a running server (`backup --url`, `query --url`): its address
// (what serve prints, with or without /api/v1), the service token (--token, else
// SERVICE_TOKEN), and the error body of a refusal (docs/api.md, "Errors").
import { UsageError } from './usage-error.js'

export interface Server {
  /** `http://host:port/api/v1`, without a trailing slash. */
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
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')
  return { api: `${parsed.origin}${path}/api/v1`, token: chosen }
}

/** A request to the server's API; a connection that fails says which server. */
export async function request(server: Server, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${server.token}`)
  try {
    return await fetch(`${server.api}${path}`, { ...init, headers })
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message
    throw new Error(`cannot reach ${server.api} (${cause}); is the server running?`)
  }
}

/** The error body of a refusal (docs/api.md, "Errors"), or the text that came instead. */
export interface ErrorBody {
  error: string
  code: string
  line?: number
  column?: number
  what?: string
  hint?: string
}

export async function errorBody(res: Response): Promise<ErrorBody> {
  const text = await res.text()
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>
    if (typeof body.error === 'string') return { ...body, error: body.error, code: typeof body.code === 'string' ? body.code : `http_${res.status}` }
  } catch { /* not the JSON error body: say what came */ }
  return { error: text === '' ? res.statusText : text, code: `http_${res.status}` }
}
