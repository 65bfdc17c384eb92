// Every HTTP call of the console, through tenantdb's client (src/client/, docs/client.md):
// it sends the token, speaks JSON and fails with one error class, TenantdbError, whose
// `status` is undefined when no server answered. What is the console's own: the API
// base and token read anew for each call (the operator may change them), no HTTP cache,
// a wait past the server's query limit (operator_answer_wait_ms), a 401 reported to
// the app (which asks for the token again), and an unreachable server explained in the
// terms an operator can act on.
import { answeredError, connect, tailEvents, TenantdbError, unansweredError, type Client, type ClientTenant, type OpRequest, type TailOptions } from '../../../src/client/index.js'
import { operator_answer_wait_ms } from '../../../src/limits.js'
import type {
  Access, CollectionEntry, DiffResult, ErrorBody, Health, HealthDetail, IssuedToken, IssueTokenRequest, OpResult, QueryResult,
  SchemaStatus, SnapshotEntry, Stats, TailEvent, TailPage, TenantEntry, TenantOp, TenantUsageBody, TokenEntry, Trends, Value,
} from './types.js'

export { TenantdbError }

export interface Connection {
  readonly apiBase: string
  readonly token: string | null
}

/** A refusal a server answered (it has a status); one with no status got no answer at all. */
export type AnsweredError = TenantdbError & { readonly status: number }

export function isAnswered(error: unknown): error is AnsweredError {
  return error instanceof TenantdbError && error.status !== undefined
}

/** The server's error body of a refusal, as the editors mark it (line, column, fields, hint). */
export function errorBody(error: TenantdbError): ErrorBody {
  return { ...error.details, error: error.message, code: error.code, conflict: error.conflict } as ErrorBody
}

/** The console never reads an answer from the HTTP cache: every view is of now. */
const uncached = (input: string, init: RequestInit) => fetch(input, { ...init, cache: 'no-store' })

export class ApiClient {
  readonly #connection: () => Connection
  readonly #unauthorized: (error: AnsweredError) => void

  constructor(connection: () => Connection, unauthorized: (error: AnsweredError) => void) {
    this.#connection = connection
    this.#unauthorized = unauthorized
  }

  health(): Promise<Health> { return this.#call((c) => c.health()) }
  /** What the token opens: everything (the service token) or a tenant token's tenants and scope. */
  access(): Promise<Access> { return this.#call((c) => c.access()) }
  healthDetail(): Promise<HealthDetail> { return this.#call((c) => c.healthDetail()) }
  stats(): Promise<Stats> { return this.#call((c) => c.stats()) }
  /** The trend ring; with `after` (Unix seconds) only the samples after it. */
  trends(after?: number): Promise<Trends> { return this.#call((c) => c.trends(after === undefined ? {} : { after })) }
  async tenants(): Promise<TenantEntry[]> { return (await this.#call((c) => c.tenants())).tenants }
  async collections(tenant: string): Promise<CollectionEntry[]> { return (await this.#tenant(tenant, (t) => t.collections())).collections }
  schema(tenant: string): Promise<SchemaStatus> { return this.#tenant(tenant, (t) => t.schema()) }
  /** What the tenant used since the server started, what it holds and its limits. */
  usage(tenant: string): Promise<TenantUsageBody> { return this.#tenant(tenant, (t) => t.usage()) }
  async snapshots(tenant: string): Promise<SnapshotEntry[]> { return (await this.#tenant(tenant, (t) => t.snapshots())).snapshots }
  diff(tenant: string, from: string, to: string, collection?: string): Promise<DiffResult> {
    return this.#tenant(tenant, (t) => t.diff({ from, to, ...(collection === undefined ? {} : { collection }) }))
  }
  query(tenant: string, text: string, params: Record<string, Value>, snapshot: string | null): Promise<QueryResult> {
    return this.#tenant(tenant, (t) => t.query(text, params, snapshot === null ? {} : { snapshot }))
  }
  /** The wire's TenantOp types `limits` loosely (the route checks it); the client's OpRequest is the same body. */
  ops(tenant: string, op: TenantOp): Promise<OpResult> { return this.#tenant(tenant, (t) => t.ops(op as OpRequest)) }
  /** A tenant's tokens (the service token only). */
  async tokens(tenant: string): Promise<TokenEntry[]> { return (await this.#tenant(tenant, (t) => t.tokens())).tokens }
  issueToken(tenant: string, request: IssueTokenRequest): Promise<IssuedToken> { return this.#tenant(tenant, (t) => t.issueToken(request)) }
  revokeToken(tenant: string, id: string): Promise<OpResult> { return this.#tenant(tenant, (t) => t.revokeToken(id)) }

  /**
   * One poll of the tail, to learn the head LSN (where "new events" start) before the
   * feed goes live: the client's feed starts after a given LSN and asks for no head.
   */
  async tailPage(tenant: string, query: Record<string, string>): Promise<TailPage> {
    const { apiBase, token } = this.#connection()
    let response: Response
    let text: string
    try {
      response = await uncached(`${apiBase}${tenantPath(tenant)}/tail?${new URLSearchParams(query).toString()}`, { headers: { authorization: `Bearer ${token ?? ''}` } })
      text = await response.text()
    } catch (err) {
      throw unansweredError('network_error', unreachable(apiBase), err)
    }
    if (response.ok) return JSON.parse(text) as TailPage
    let body: unknown = text
    try { body = JSON.parse(text) } catch { /* answeredError makes http_<status> of it */ }
    throw this.#seen(answeredError(response.status, body, response.headers.get('content-type')))
  }

  /**
   * The tenant's change feed (the client's tailEvents, docs/client.md "The change
   * feed") from the connection as it is now. Its errors are the caller's: a 401 ends
   * the tail page with its own words (tail-stream.ts).
   */
  tail(tenant: string, options: Omit<TailOptions, 'urls' | 'token' | 'tenant' | 'fetch'>): AsyncIterableIterator<TailEvent> {
    const { apiBase, token } = this.#connection()
    return tailEvents({ urls: [apiBase], token: token ?? '', tenant, fetch: uncached, ...options })
  }

  #tenant<T>(tenant: string, call: (tenant: ClientTenant) => Promise<T>): Promise<T> {
    return this.#call((client) => call(client.tenant(tenant)))
  }

  /** Runs `call` with a client of the connection as it is now. */
  async #call<T>(call: (client: Client) => Promise<T>): Promise<T> {
    const { apiBase, token } = this.#connection()
    try {
      return await call(await connect({ url: apiBase, token: token ?? '', fetch: uncached, timeout_ms: operator_answer_wait_ms }))
    } catch (err) {
      if (!(err instanceof TenantdbError)) throw err
      if (err.code === 'network_error') throw unansweredError('network_error', unreachable(apiBase), err)
      throw this.#seen(err)
    }
  }

  /** A 401 (a token missing, wrong, expired or revoked) is the app's to handle: it asks for the token again. */
  #seen(error: TenantdbError): TenantdbError {
    if (isAnswered(error) && error.status === 401) this.#unauthorized(error)
    return error
  }
}

function tenantPath(tenant: string): string {
  return `/api/v1/t/${encodeURIComponent(tenant)}`
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
  if (isAnswered(error)) return `${error.message} (${error.status} ${error.code})`
  if (error instanceof Error) return error.message
  return String(error)
}
