// `tenantdb query --url`: statements run by a running server, through tenantdb's client
// (src/client/, docs/client.md). A query goes to the tenant's query call; a `tenant …`
// operation, which that route refuses, to the operation it names (opRequestOf, as the
// embedded db.run does), so the same text works against a directory and against a
// server.
import type { Client, Params } from '../client/index.js'
import { EelError } from '../lang/diagnostic.js'
import { parse } from '../lang/index.js'
import type { Value } from '../lang/ast.js'
import { opRequestOf } from '../tenants/op-statement.js'
import { StatementFailure } from './query-failure.js'
import type { CollectionSummary, QueryTarget, StatementResult, TenantSummary } from './query-target.js'
import { clientOf, reached, type Server } from './server-client.js'

export class RemoteTarget implements QueryTarget {
  readonly where: string
  #tenant: string
  readonly #server: Server
  #client: Promise<Client> | undefined

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
    // Anything but an operation, a syntax error included, is the server's to judge and report.
    if (statement?.kind === 'tenant_op') return this.#call((client) => client.ops(opRequestOf(statement)))
    // Sent as JSON, as any value the command line can give (a Date would go as its ISO text).
    return this.#call((client) => client.tenant(this.#tenant).query(text, params as Params))
  }

  async tenants(): Promise<TenantSummary[]> {
    return (await this.#call((client) => client.tenants())).tenants
  }

  async collections(): Promise<CollectionSummary[]> {
    return (await this.#call((client) => client.tenant(this.#tenant).collections())).collections
  }

  async schema(): Promise<string> {
    const text = await this.#call((client) => client.schemaSource())
    return text === '' ? '# the server was started without schema files: tenants have no collections\n' : text.endsWith('\n') ? text : `${text}\n`
  }

  async useTenant(tenant: string): Promise<void> {
    await this.#call((client) => client.tenant(tenant).schema())
    this.#tenant = tenant
  }

  async close(): Promise<void> {}

  /** A refusal becomes the failure the command prints; an unreachable server names it. */
  async #call<T>(call: (client: Client) => Promise<T>): Promise<T> {
    this.#client ??= clientOf(this.#server)
    try {
      return await reached(this.#server, async () => call(await (this.#client as Promise<Client>)))
    } catch (err) {
      throw StatementFailure.of(err)
    }
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
