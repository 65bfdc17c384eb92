// One tenant of a server, over HTTP (docs/client.md, "Calls"): the embedding API's
// Tenant (src/database/tenant.ts) where HTTP can express it, each call one request.
import { unansweredError } from './errors.js'
import { refused } from './refusal.js'
import type { Nodes } from './nodes.js'
import { RemoteStatement } from './remote-statement.js'
import { tailEvents, type TailEvent } from './tail.js'
import type {
  CallOptions, ClientStatement, ClientTenant, ClientTransaction, CollectionEntry, DiffRequest, DiffResult, IssuedToken, IssueTokenRequest, OpRequest,
  OpResult, Params, QueryOptions, QueryResult, SchemaStatus, SnapshotEntry, TenantTailOptions, TenantUsageBody, TokenEntry,
} from './types.js'

export class RemoteTenant implements ClientTenant {
  readonly name: string
  readonly #nodes: Nodes

  constructor(nodes: Nodes, name: string) {
    this.#nodes = nodes
    this.name = name
  }

  get #path(): string {
    return `/api/v1/t/${encodeURIComponent(this.name)}`
  }

  /**
   * Sent to the primary, and never again without an answer: the text may write. A read
   * of a named snapshot cannot write (`readonly_snapshot`), so it may go to any node.
   */
  async query(text: string, params: Params = {}, options: QueryOptions = {}): Promise<QueryResult> {
    const request = {
      method: 'POST' as const,
      path: `${this.#path}/query`,
      body: { query: text, params },
      ...(options.snapshot === undefined ? {} : { headers: { 'service-snapshot': options.snapshot } }),
    }
    const body = options.snapshot === undefined ? this.#nodes.write(request, options.signal) : this.#nodes.read(request, options.signal)
    return (await body) as QueryResult
  }

  /** No round trip: the server checks the text on its first run and keeps the checked form for the next. */
  async prepare(text: string, options: CallOptions = {}): Promise<ClientStatement> {
    if (options.signal?.aborted === true) throw unansweredError('aborted', 'the call was aborted by its caller')
    return new RemoteStatement(this, text)
  }

  /** A server holds no snapshot between requests, so a transaction cannot span several. */
  async transaction<T>(_fn: (tx: ClientTransaction) => Promise<T>): Promise<T> {
    throw refused('not_allowed_here',
      'a transaction around application code needs the embedded database: over HTTP no session holds a snapshot between requests; ' +
      'send the statements as one atomic block instead (atomic { … }), which commits them together or not at all')
  }

  async ops(request: OpRequest, options: CallOptions = {}): Promise<OpResult> {
    return (await this.#nodes.write({ method: 'POST', path: `${this.#path}/ops`, body: request }, options.signal)) as OpResult
  }

  async diff(request: DiffRequest): Promise<DiffResult> {
    const { signal, from, to, collection, limit } = request
    return (await this.#nodes.read({ method: 'GET', path: `${this.#path}/diff`, query: { from, to, collection, limit } }, signal)) as DiffResult
  }

  async snapshots(options: CallOptions = {}): Promise<{ tenant: string; snapshots: SnapshotEntry[] }> {
    return (await this.#get('snapshots', options)) as { tenant: string; snapshots: SnapshotEntry[] }
  }

  async collections(options: CallOptions = {}): Promise<{ tenant: string; collections: CollectionEntry[] }> {
    return (await this.#get('collections', options)) as { tenant: string; collections: CollectionEntry[] }
  }

  async schema(options: CallOptions = {}): Promise<SchemaStatus> {
    return (await this.#get('schema', options)) as SchemaStatus
  }

  async usage(options: CallOptions = {}): Promise<TenantUsageBody> {
    return (await this.#get('usage', options)) as TenantUsageBody
  }

  async tokens(options: CallOptions = {}): Promise<{ tenant: string; tokens: TokenEntry[] }> {
    return (await this.#get('tokens', options)) as { tenant: string; tokens: TokenEntry[] }
  }

  async issueToken(request: IssueTokenRequest, options: CallOptions = {}): Promise<IssuedToken> {
    return (await this.#nodes.write({ method: 'POST', path: `${this.#path}/tokens`, body: request }, options.signal)) as IssuedToken
  }

  async revokeToken(id: string, options: CallOptions = {}): Promise<OpResult> {
    return (await this.#nodes.write({ method: 'DELETE', path: `${this.#path}/tokens/${encodeURIComponent(id)}` }, options.signal)) as OpResult
  }

  #get(route: string, options: CallOptions): Promise<unknown> {
    return this.#nodes.read({ method: 'GET', path: `${this.#path}/${route}` }, options.signal)
  }

  /** The change feed over WebSocket or long polls, from any node (a follower serves it too). */
  tail(options: TenantTailOptions = {}): AsyncIterableIterator<TailEvent> {
    return tailEvents({ ...this.#nodes.connection, tenant: this.name, ...options })
  }
}
