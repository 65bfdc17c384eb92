// One tenant of a database opened in this process, through the client's interface
// (docs/client.md, "Calls"): the embedding API's Tenant, its errors mapped as the HTTP
// API would answer them (embedded-errors.ts).
import type { AccessTokens, IssueRequest, Tenant } from '../database/index.js'
import type { Transaction } from '../query/index.js'
import { mapped } from './embedded-errors.js'
import { embeddedTail } from './embedded-tail.js'
import type { TailEvent } from './tail.js'
import type {
  CallOptions, ClientStatement, ClientTenant, ClientTransaction, CollectionEntry, DiffRequest, DiffResult, IssuedToken, IssueTokenRequest, OpRequest,
  OpResult, Params, QueryOptions, QueryResult, Row, SchemaStatus, SnapshotEntry, TenantTailOptions, TenantUsageBody, TokenEntry,
} from './types.js'

export interface EmbeddedOps {
  ops(request: OpRequest): Promise<OpResult>
  readonly accessTokens: AccessTokens
}

export class EmbeddedTenant implements ClientTenant {
  readonly name: string
  readonly #tenant: Tenant
  readonly #db: EmbeddedOps

  constructor(tenant: Tenant, db: EmbeddedOps) {
    this.#tenant = tenant
    this.#db = db
    this.name = tenant.name
  }

  query(text: string, params: Params = {}, options: QueryOptions = {}): Promise<QueryResult> {
    const only = options.snapshot === undefined ? {} : { snapshot: options.snapshot }
    return mapped(true, options.signal, async () => (await this.#tenant.query(text, params, only)) as unknown as QueryResult)
  }

  async prepare(text: string, options: CallOptions = {}): Promise<ClientStatement> {
    const statement = await mapped(true, options.signal, () => this.#tenant.prepare(text))
    return {
      text,
      run: (params = {}, call = {}) => mapped(true, call.signal, async () => (await statement.run(params)) as unknown as QueryResult),
      get: (params = {}, call = {}) => mapped(true, call.signal, () => statement.get(params) as Row | undefined),
      all: (params = {}, call = {}) => mapped(true, call.signal, () => statement.all(params) as Row[]),
    }
  }

  transaction<T>(fn: (tx: ClientTransaction) => Promise<T>, options: { retries?: number } = {}): Promise<T> {
    const run = (tx: Transaction) => fn({
      query: (text, params = {}) => mapped(true, undefined, async () => (await tx.query(text, params)) as unknown as QueryResult),
    })
    return mapped(true, undefined, () => this.#tenant.transaction(run, options.retries === undefined ? {} : { retries: options.retries }))
  }

  /** `name` defaults to this tenant, and `compact` always works on it, as on the route. */
  ops(request: OpRequest, options: CallOptions = {}): Promise<OpResult> {
    const name = request.op === 'compact' ? this.name : request.name ?? this.name
    return mapped(false, options.signal, () => this.#db.ops({ ...request, name }))
  }

  diff(request: DiffRequest): Promise<DiffResult> {
    const { signal, ...rest } = request
    return mapped(false, signal, () => this.#tenant.diff(rest) as unknown as DiffResult)
  }

  snapshots(options: CallOptions = {}): Promise<{ tenant: string; snapshots: SnapshotEntry[] }> {
    return mapped(false, options.signal, () => this.#tenant.snapshots())
  }

  collections(options: CallOptions = {}): Promise<{ tenant: string; collections: CollectionEntry[] }> {
    return mapped(false, options.signal, () => this.#tenant.collections())
  }

  schema(options: CallOptions = {}): Promise<SchemaStatus> {
    return mapped(false, options.signal, () => this.#tenant.schema() as unknown as SchemaStatus)
  }

  usage(options: CallOptions = {}): Promise<TenantUsageBody> {
    return mapped(false, options.signal, () => this.#tenant.usage() as unknown as TenantUsageBody)
  }

  /** The change feed, by the embedding API's long polls (embedded-tail.ts). */
  tail(options: TenantTailOptions = {}): AsyncIterableIterator<TailEvent> {
    return embeddedTail(this.#tenant, options)
  }

  tokens(options: CallOptions = {}): Promise<{ tenant: string; tokens: TokenEntry[] }> {
    return mapped(false, options.signal, () => ({ tenant: this.name, tokens: this.#db.accessTokens.list(this.name) as TokenEntry[] }))
  }

  issueToken(request: IssueTokenRequest, options: CallOptions = {}): Promise<IssuedToken> {
    return mapped(false, options.signal, () => this.#db.accessTokens.issue(this.name, request as IssueRequest) as Promise<IssuedToken>)
  }

  /** The same answer as the route's (DELETE …/tokens/:id). */
  revokeToken(id: string, options: CallOptions = {}): Promise<OpResult> {
    return mapped(false, options.signal, async () => {
      await this.#db.accessTokens.revoke(this.name, id)
      return { ok: true, message: `revoked token ${id} of ${this.name}` } as OpResult
    })
  }
}
