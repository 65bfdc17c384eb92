// Every HTTP call of the console: the API base in front, the token as a Bearer
// header (docs/api.md), JSON both ways, and one error type carrying the server's
// {"error", "code"} body. A 401 is reported to the app, which asks for the token again.
import type {
  Access, CollectionEntry, DiffResult, ErrorBody, Health, HealthDetail, IssuedToken, IssueTokenRequest, OpResult, QueryResult,
  SchemaStatus, SnapshotEntry, Stats, TailPage, TenantEntry, TenantOp, TenantUsageBody, TokenEntry, Trends, Value,
} from './types.js'

export class ApiError extends Error {
  readonly status: number
  readonly body: ErrorBody

  constructor(status: number, body: ErrorBody) {
    super(body.error)
    this.status = status
    this.body = body
  }

  get code(): string {
    return this.body.code
  }
}

/** The server could not be reached at all (down, wrong base, or CORS refused the origin). */
export class NetworkError extends Error {}

export interface Connection {
  readonly apiBase: string
  readonly token: string | null
}

export class ApiClient {
  readonly #connection: () => Connection
  readonly #unauthorized: (error: ApiError) => void

  constructor(connection: () => Connection, unauthorized: (error: ApiError) => void) {
    this.#connection = connection
    this.#unauthorized = unauthorized
  }

  health(): Promise<Health> { return this.#get('/api/v1/health') }
  /** What the token opens: everything (the service token) or a tenant token's tenants and scope. */
  access(): Promise<Access> { return this.#get('/api/v1/access') }
  healthDetail(): Promise<HealthDetail> { return this.#get('/api/v1/health/detail') }
  stats(): Promise<Stats> { return this.#get('/api/v1/stats') }
  /** The trend ring; with `after` (Unix seconds) only the samples after it. */
  trends(after?: number): Promise<Trends> { return this.#get(`/api/v1/trends${after === undefined ? '' : `?after=${after}`}`) }
  async tenants(): Promise<TenantEntry[]> { return (await this.#get<{ tenants: TenantEntry[] }>('/api/v1/tenants')).tenants }
  async collections(tenant: string): Promise<CollectionEntry[]> {
    return (await this.#get<{ collections: CollectionEntry[] }>(`${tenantPath(tenant)}/collections`)).collections
  }
  schema(tenant: string): Promise<SchemaStatus> { return this.#get(`${tenantPath(tenant)}/schema`) }
  /** What the tenant used since the server started, what it holds and its limits. */
  usage(tenant: string): Promise<TenantUsageBody> { return this.#get(`${tenantPath(tenant)}/usage`) }
  async snapshots(tenant: string): Promise<SnapshotEntry[]> {
    return (await this.#get<{ snapshots: SnapshotEntry[] }>(`${tenantPath(tenant)}/snapshots`)).snapshots
  }
  diff(tenant: string, from: string, to: string, collection?: string): Promise<DiffResult> {
    const query = new URLSearchParams({ from, to })
    if (collection !== undefined) query.set('collection', collection)
    return this.#get(`${tenantPath(tenant)}/diff?${query.toString()}`)
  }
  /** One poll of the tail, used to learn the head LSN before going live. */
  tailPage(tenant: string, query: Record<string, string>): Promise<TailPage> {
    return this.#get(`${tenantPath(tenant)}/tail?${new URLSearchParams(query).toString()}`)
  }
  query(tenant: string, text: string, params: Record<string, Value>, snapshot: string | null): Promise<QueryResult> {
    return this.#send(`${tenantPath(tenant)}/query`, { query: text, params }, snapshot === null ? {} : { 'service-snapshot': snapshot })
  }
  ops(tenant: string, op: TenantOp): Promise<OpResult> {
    return this.#send(`${tenantPath(tenant)}/ops`, op)
  }
  /** A tenant's tokens (the service token only). */
  async tokens(tenant: string): Promise<TokenEntry[]> {
    return (await this.#get<{ tokens: TokenEntry[] }>(`${tenantPath(tenant)}/tokens`)).tokens
  }
  issueToken(tenant: string, request: IssueTokenRequest): Promise<IssuedToken> {
    return this.#send(`${tenantPath(tenant)}/tokens`, request)
  }
  revokeToken(tenant: string, id: string): Promise<OpResult> {
    return this.#request(`${tenantPath(tenant)}/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' })
  }

  /** The tail's WebSocket URL: browsers cannot set headers on it, so the token rides in ?token= (docs/api.md). */
  tailSocketUrl(tenant: string, query: Record<string, string>): string {
    const { apiBase, token } = this.#connection()
    const url = new URL(`${tenantPath(tenant)}/tail`, apiBase)
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
    url.searchParams.set('token', token ?? '')
    return url.toString()
  }

  #get<T>(path: string): Promise<T> {
    return this.#request<T>(path, { method: 'GET' })
  }

  #send<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    return this.#request<T>(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } })
  }

  async #request<T>(path: string, init: RequestInit): Promise<T> {
    const { apiBase, token } = this.#connection()
    let response: Response
    try {
      response = await fetch(apiBase + path, {
        ...init,
        headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${token ?? ''}` },
        cache: 'no-store',
      })
    } catch {
      throw new NetworkError(unreachable(apiBase))
    }
    const text = await response.text()
    const body = parseJson(text)
    if (response.ok) return body as T
    const error = new ApiError(response.status, isErrorBody(body) ? body : { error: text || response.statusText, code: `http_${response.status}` })
    if (response.status === 401) this.#unauthorized(error)
    return Promise.reject(error)
  }
}

function tenantPath(tenant: string): string {
  return `/api/v1/t/${encodeURIComponent(tenant)}`
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).error === 'string' && typeof (body as ErrorBody).code === 'string'
}

/** Why a fetch fails without a response, in the terms an operator can act on. */
export function unreachable(apiBase: string): string {
  const own = window.location.origin
  const cross = apiBase !== own
  return `cannot reach the API at ${apiBase}: the server is not running there` +
    (cross ? `, or it does not allow this page's origin (start it with --console-origin ${own})` : '')
}

/** A sentence for any error a call can end with. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.status} ${error.code})`
  if (error instanceof Error) return error.message
  return String(error)
}
