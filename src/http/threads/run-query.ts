// The opening thread's side of a statement a worker's query route forwarded
// (docs/architecture.md, "Every core"): the worker checked the request (token, scope,
// body), so only the statement runs here, through the same database call as the
// route's; a failure is mapped to its answer here, where the error's class is known,
// and logged here when the mapping says so.
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../../database/index.js'
import { mapError } from '../error-mapping.js'
import type { ForwardedQuery, QueryOutcome } from './messages.js'

export async function runForwardedQuery(db: Database, query: ForwardedQuery, log: FastifyBaseLogger): Promise<QueryOutcome> {
  try {
    const result = await db.tenant(query.tenant).query(query.text, query.params, query.snapshot === null ? {} : { snapshot: query.snapshot })
    return { ok: true, result }
  } catch (err) {
    return failed(err, query, log)
  }
}

/** The answer to an error of a forwarded statement (also one its outcome met on the way back). */
export function failed(err: unknown, query: ForwardedQuery, log: FastifyBaseLogger): QueryOutcome {
  const { status, body, log: logged } = mapError(err, { failuresAre400: true })
  if (logged) log.error({ err, reqId: query.request_id }, 'request failed')
  return { ok: false, status, body }
}
