// The loaded schema as each page needs it (the data browser's columns and forms, the
// schema page, the editor's completions), fetched once and shared: a page that asks
// again within a few seconds, or while the request is in flight, gets the same answer
// rather than sending another request.
import type { ApiClient } from '../api/client.js'
import type { CollectionIR, SchemaStatus } from '../api/types.js'

const fresh_ms = 5000

export class SchemaStore {
  readonly #api: ApiClient
  readonly #entries = new Map<string, { at: number; answer: Promise<SchemaStatus> }>()

  constructor(api: ApiClient) {
    this.#api = api
  }

  /** The schema status of `tenant` (its IR, fingerprints, migration state). */
  get(tenant: string): Promise<SchemaStatus> {
    const entry = this.#entries.get(tenant)
    if (entry !== undefined && performance.now() - entry.at < fresh_ms) return entry.answer
    const answer = this.#api.schema(tenant)
    this.#entries.set(tenant, { at: performance.now(), answer })
    // A failure is not kept: the next call asks again.
    answer.catch(() => { if (this.#entries.get(tenant)?.answer === answer) this.#entries.delete(tenant) })
    return answer
  }

  /** Forget what is known (after an operation that may change it). */
  invalidate(tenant?: string): void {
    if (tenant === undefined) this.#entries.clear()
    else this.#entries.delete(tenant)
  }
}

export function findCollection(schema: SchemaStatus, name: string): CollectionIR | undefined {
  return schema.ir.collections.find((c) => c.name === name)
}
