// `tenantdb query --url`: statements run by a running server (docs/api.md). A query goes
// to POST …/t/TENANT/query; a `tenant …` operation, which that route refuses, to POST
// …/t/NAME/ops as the operation it names (opRequestOf, as the embedded db.run does), so
// the same text works against a directory and against a server.
import { EelError } from '../lang/diagnostic.js'
import { parse } from '../lang/index.js'
import type { Value } from '../lang/ast.js'
import { opRequestOf } from '../tenants/op-statement.js'
import { StatementFailure } from './query-failure.js'
import type { CollectionSummary, QueryTarget, StatementResult, TenantSummary } from './query-target.js'
import { errorBody, request, type Server } from './server-client.js'

export class RemoteTarget implements QueryTarget {
  readonly where: string
  #tenant: string
  readonly #server: Server

  constructor(server: Server, tenant: string) {
    this.#server = server
    this.where = server.api
    this.#tenant = tenant
  }

  get tenant(): string {
    return this.#tenant
  }

  async run(text: string, params: Record<string, Value>): Promise<StatementResult> {
    const statement = firstStatement(text)
    if (statement?.kind === 'tenant_op') {
      const op = opRequestOf(statement)
      const tenant = op.name.split('@')[0] as string
      return this.#json(`/t/${encodeURIComponent(tenant)}/ops`, { method: 'POST', body: JSON.stringify(op) })
    }
    // Anything else, a syntax error included, is the server's to judge and report.
    return this.#json(`/t/${encodeURIComponent(this.#tenant)}/query`, { method: 'POST', body: JSON.stringify({ query: text, params }) })
  }

  async tenants(): Promise<TenantSummary[]> {
    return (await this.#json<{ tenants: TenantSummary[] }>('/tenants')).tenants
  }

  async collections(): Promise<CollectionSummary[]> {
    return (await this.#json<{ collections: CollectionSummary[] }>(`/t/${encodeURIComponent(this.#tenant)}/collections`)).collections
  }

  async schema(): Promise<string> {
    const res = await request(this.#server, '/schema.eel')
    if (!res.ok) throw StatementFailure.fromBody(await errorBody(res))
    const text = await res.text()
    return text === '' ? '# the server was started without schema files: tenants have no collections\n' : text.endsWith('\n') ? text : `${text}\n`
  }

  async useTenant(tenant: string): Promise<void> {
    await this.#json(`/t/${encodeURIComponent(tenant)}/schema`)
    this.#tenant = tenant
  }

  async close(): Promise<void> {}

  async #json<T = StatementResult>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await request(this.#server, path, init.body === undefined ? init : { ...init, headers: { 'content-type': 'application/json' } })
    if (!res.ok) throw StatementFailure.fromBody(await errorBody(res))
    return (await res.json()) as T
  }
}

/** The statement the text starts with, or undefined when it does not parse. */
function firstStatement(text: string) {
  try {
    return parse(text, 'query').statements[0]
  } catch (err) {
    if (err instanceof EelError) return undefined
    throw err
  }
}
