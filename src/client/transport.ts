// One HTTP request to one node (docs/client.md, "Calls"; docs/api.md is the contract):
// `fetch` with `Authorization: Bearer`, JSON both ways; a server's error body becomes a
// TenantdbError with its status (answeredError), and a request no server answered one
// with none: `network_error`, or the deadline's `timeout` or `aborted`.
import type { Deadline } from './deadline.js'
import { answeredError, unansweredError } from './errors.js'

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>

export interface Request {
  method: 'GET' | 'POST' | 'DELETE'
  /** Below the base URL: `/api/v1/t/acme/query`. */
  path: string
  query?: Record<string, string | number | undefined>
  /** Sent as JSON. */
  body?: unknown
  headers?: Record<string, string>
  /** Resolve with the Response itself once its headers came (a body too large to hold: the backup archive). */
  stream?: true
}

export interface Transport {
  token: string
  fetch: FetchFunction
}

/** The request's URL on the node at `base` (`http://host:port`, a trailing slash allowed). */
export function requestUrl(base: string, request: Request): string {
  let url = base.replace(/\/+$/, '') + request.path
  const query = Object.entries(request.query ?? {}).filter((entry): entry is [string, string | number] => entry[1] !== undefined)
  if (query.length > 0) url += '?' + query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')
  return url
}

/** The node's answer body, parsed (or the Response for a `stream` request); rejects with a TenantdbError for an error answer or none. */
export async function send(transport: Transport, base: string, request: Request, deadline: Deadline): Promise<unknown> {
  deadline.check()
  const headers: Record<string, string> = { authorization: `Bearer ${transport.token}`, accept: 'application/json', ...request.headers }
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  const url = requestUrl(base, request)
  let response: Response
  let text: string
  try {
    response = await transport.fetch(url, {
      method: request.method,
      headers,
      signal: deadline.signal,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    })
    if (request.stream === true && response.ok) return response
    text = await response.text()
  } catch (err) {
    throw deadline.ended(err) ?? unansweredError('network_error', `could not reach ${base}: ${err instanceof Error ? err.message : String(err)}`, err)
  }
  const contentType = response.headers.get('content-type')
  const body = parsed(text, contentType)
  if (!response.ok) throw answeredError(response.status, body, contentType)
  return body
}

/** JSON when it says so and is; otherwise the text (answeredError makes `http_<status>` of it). */
function parsed(text: string, contentType: string | null): unknown {
  if (contentType === null || !contentType.startsWith('application/json')) return text
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
