// POST /api/v1/t/:tenant/query (docs/api.md, "Queries"): one pipeline or one atomic
// block. Body: JSON {"query"|"text": "…", "params": {…}}, or the query text itself (a
// body that is not JSON, or a JSON string). `Service-Snapshot: <name>` pins the read to
// a snapshot. Every failure of the query is a 400 (config.failuresAre400,
// error-mapping.ts), `conflict: true` for a lost race. The answer is written a chunk at a time
// once the statement has finished (answer-body.ts, docs/api.md "Size of an answer").
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import type { Value } from '../../lang/ast.js'
import { answerBody } from '../answer-body.js'
import { HttpError } from '../errors.js'
import { credentialOf, queryRefusal } from '../route-access.js'
import { described, responses, tenant_params, unknown_tenant, with_body, writes, type Schema } from '../schemas.js'
import { query_result_body } from '../wire/index.js'
import { forwardQuery, wouldCommit, type OpenerLink } from '../threads/index.js'

export const query_path = '/api/v1/t/:tenant/query'

/** The body once its schema accepted it. */
export type QueryBody = string | { query?: string; text?: string; params?: Record<string, Value> }

export interface QueryRequest {
  text: string
  params: Record<string, Value>
}

const query_text: Schema = { type: 'string', description: 'the query text itself', examples: ['users | take 5'] }
const query_object: Schema = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'the query text' },
    text: { type: 'string', description: 'the query text (the same as query; give one of them)' },
    params: { type: 'object', additionalProperties: true, description: 'named parameters ($name in the query)' },
  },
  oneOf: [{ required: ['query'] }, { required: ['text'] }],
  examples: [{ query: 'users | where age > $a | take 5', params: { a: 30 } }],
}

const schema = {
  operationId: 'runQuery',
  summary: 'Run one pipeline or one atomic block',
  description: 'A statement that writes (insert, upsert, a pipeline with update or delete, an atomic block holding one) needs ' +
    'the service token or a tenant token with scope write or admin: a read token\'s is refused with 403 `forbidden` before it runs.',
  params: tenant_params,
  headers: {
    type: 'object',
    properties: {
      'service-snapshot': { type: 'string', description: 'read the named snapshot of the path tenant (writes fail with readonly_snapshot)' },
    },
  },
  // Bodies are read whatever their content type (body.ts): validation takes either form.
  body: { anyOf: [query_text, query_object] },
  response: responses(
    {
      200: described('OK', query_result_body),
    },
    {
      ...unknown_tenant,
      400: 'every failure of the query itself (`conflict: true` for a lost race: retry), a malformed body, one that is not well-formed UTF-8, or a refused path',
      404: '`unknown_tenant`, `unknown_snapshot` (Service-Snapshot)',
      ...with_body,
      ...writes,
    },
    'QueryError',
  ),
}

/** The document names each form under its content type. */
const document_body = { content: { 'application/json': { schema: query_object }, 'text/plain': { schema: query_text } } }

/** The query text and params of a validated body. */
export function queryRequest(body: QueryBody): QueryRequest {
  if (typeof body === 'string') return { text: body, params: {} }
  return { text: body.query ?? body.text ?? '', params: body.params ?? {} }
}

/** `opener`: a worker thread's server, which hands what commits to the opening thread (threads/). */
export function queryRoutes(db: Database, opener?: OpenerLink) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.post<{ Params: { tenant: string }; Body: QueryBody; Headers: { 'service-snapshot'?: string } }>(query_path, {
      schema,
      config: {
        failuresAre400: true,
        // A read token may run only statements that read, and a tenant operation in the
        // text may name only tenants the token opens (queryRefusal, below).
        access: { tenant: 'read' },
        swaggerTransform: ({ schema: routeSchema, url }) => ({ schema: { ...routeSchema, body: document_body }, url }),
      },
    }, async (request, reply) => {
      const { text, params } = queryRequest(request.body)
      const refusal = queryRefusal(credentialOf(request), text, db.schema.ir)
      if (refusal !== null) throw new HttpError(refusal.code, refusal.message)
      const pin = request.headers['service-snapshot']
      const snapshot = pin === undefined || pin === '' ? null : pin
      // Known before running: the opening thread runs the statement, checked here.
      if (opener !== undefined && wouldCommit(text, db.schema.ir)) {
        return forwardQuery(opener, { tenant: request.params.tenant, text, params, snapshot, request_id: request.id }, reply)
      }
      const result = await db.tenant(request.params.tenant).query(text, params, snapshot === null ? {} : { snapshot })
      return reply.type('application/json; charset=utf-8').send(answerBody(result))
    })
  }
}
