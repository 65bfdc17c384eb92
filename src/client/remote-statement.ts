// A prepared statement over HTTP (docs/client.md, "Calls"). There is no route to
// prepare one: the server keeps each text's parsed and checked form (docs/api.md,
// "Queries"), so a statement is its text, sent again with each call's parameters, and
// every call is one round trip.
import { allRows, rowObjects } from './rows.js'
import type { CallOptions, ClientStatement, ClientTenant, Params, QueryResult, Row } from './types.js'

export class RemoteStatement implements ClientStatement {
  readonly text: string
  readonly #tenant: Pick<ClientTenant, 'query'>

  constructor(tenant: Pick<ClientTenant, 'query'>, text: string) {
    this.#tenant = tenant
    this.text = text
  }

  run(params: Params = {}, options: CallOptions = {}): Promise<QueryResult> {
    return this.#tenant.query(this.text, params, options)
  }

  async get(params: Params = {}, options: CallOptions = {}): Promise<Row | undefined> {
    return rowObjects(await this.run(params, options))[0]
  }

  async all(params: Params = {}, options: CallOptions = {}): Promise<Row[]> {
    return allRows(await this.run(params, options))
  }
}
