// POST /api/v1/t/:tenant/query (docs/api.md, "Queries"): one pipeline or one atomic
// block. Body: JSON {"query"|"text": "…", "params": {…}}, or any body that is not JSON
// as the query text itself. `Service-Snapshot: <name>` pins the read to a snapshot.
// Every failure of the query is a 400 with `conflict` (the error handler adds it).
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import type { Value } from '../../lang/ast.js'
import { HttpError } from '../errors.js'
import { tenantOf } from './params.js'

export const query_path = '/api/v1/t/:tenant/query'

export interface QueryRequest {
  text: string
  params: Record<string, Value>
}

/** The query text and params of a raw request body. */
export function parseQueryBody(raw: unknown): QueryRequest {
  const body = typeof raw === 'string' ? raw : ''
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return { text: body, params: {} }
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new HttpError('bad_request', 'the body must be a JSON object {"query": "…", "params": {…}} or the query text itself')
  }
  const { query, text, params } = json as Record<string, unknown>
  if (query !== undefined && text !== undefined) throw new HttpError('bad_request', 'the body may give "query" or "text", not both')
  const source = query ?? text
  if (typeof source !== 'string') throw new HttpError('bad_request', 'the body needs "query" (or "text"): the query text as a string')
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    throw new HttpError('bad_request', '"params" must be an object of named parameters')
  }
  return { text: source, params: (params ?? {}) as Record<string, Value> }
}

export function queryRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post(query_path, async (request) => {
      const { text, params } = parseQueryBody(request.body)
      const pin = request.headers['service-snapshot']
      if (Array.isArray(pin)) throw new HttpError('bad_request', 'Service-Snapshot may be given once')
      return db.tenant(tenantOf(request)).query(text, params, pin === undefined || pin === '' ? {} : { snapshot: pin })
    })
  }
}
