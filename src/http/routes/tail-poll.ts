// GET /api/v1/t/:tenant/tail without an upgrade: the HTTP poll form of the change tail
// (docs/api.md, "Change tail") → {events, last_lsn, head_lsn}. `after` is exclusive;
// `wait_ms` (at most tail_wait_ms_max; a larger value is refused, not lowered) long-polls,
// ending early when the client goes away or the server closes.
// The WebSocket form shares the path: server.ts registers this as the route's HTTP
// handler next to the upgrade handler.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Database } from '../../database/index.js'
import { tail_limit_max, tail_wait_ms_max } from '../../limits.js'
import { unauthorized } from '../auth.js'
import type { TailObserver } from '../metrics/index.js'
import type { TokenWatch } from '../token-watch.js'
import { described, intQuery, responses, suspended, tenant_params, unknown_tenant } from '../schemas.js'
import { tail_page_body } from '../wire/index.js'

export const tail_path = '/api/v1/t/:tenant/tail'

export interface TailQuery {
  after?: number
  collection?: string
  limit?: number
  wait_ms?: number
}

/** The route's schema, for both forms: the parameters are the same (limit and wait_ms: poll only). */
export const tail_schema = {
  operationId: 'tailChanges',
  summary: 'The change tail: an HTTP poll, or a WebSocket upgrade (backlog then live events)',
  description: 'With `Upgrade: websocket` the token must be `?token=` (a header token is refused with 401 before the upgrade); ' +
    'the server then sends one JSON text message per event (TailEvent), pings every 15 s, and closes with 1001 (shutdown), ' +
    '1009 (client message over 1 MiB), 1011 (failure), 1013 (consumer too slow; resume with after) or 4410 (lsn_expired). ' +
    'Every refusal (400, 401, 403, 404, 410, 423) comes before the upgrade.',
  params: tenant_params,
  querystring: {
    type: 'object',
    properties: {
      after: intQuery('exclusive; absent: from the oldest retained event. Beyond the newest commit: 400'),
      collection: { type: 'string', description: 'only this collection (empty: every collection); one the schema does not declare is refused with 400 `unknown_collection`' },
      limit: intQuery(`poll only: most events; more than ${tail_limit_max} is lowered to ${tail_limit_max}`, { minimum: 1 }),
      wait_ms: intQuery(`poll only: long-poll until an event arrives, at most ${tail_wait_ms_max} ms (more is refused with 400)`, { maximum: tail_wait_ms_max }),
    },
  },
  response: responses(
    {
      200: described('a page of events (poll)', tail_page_body),
      101: described('switched to the WebSocket protocol', { type: 'null' }),
    },
    {
      ...unknown_tenant,
      400: '`bad_request`: a malformed `after`, `limit` or `wait_ms`, a `wait_ms` over the maximum, an `after` beyond the newest commit, or a refused path; `unknown_collection`',
      410: '`lsn_expired`; the body adds `oldest_lsn`',
      ...suspended,
    },
  ),
}

/**
 * `observer` counts polls in progress and the events they answer with (the metrics);
 * `watch` ends a long poll whose tenant token is revoked or expires meanwhile: 401,
 * and none of the events.
 */
export function tailPollRoute(db: Database, closing: AbortSignal, observer: TailObserver, watch: TokenWatch) {
  return async function tailPoll(request: FastifyRequest<{ Params: { tenant: string }; Querystring: TailQuery }>, reply: FastifyReply) {
    const { tenant } = request.params
    const { after, limit, wait_ms, collection } = request.query
    const gone = new AbortController()
    const onClose = () => { if (!reply.raw.writableFinished) gone.abort() }
    reply.raw.once('close', onClose)
    const revoked = new AbortController()
    const unwatch = watch.watchRequest(request, tenant, () => revoked.abort())
    observer.opened('poll')
    try {
      const page = await db.tenant(tenant).tail({
        ...(after === undefined ? {} : { after }),
        ...(limit === undefined ? {} : { limit }),
        ...(wait_ms === undefined ? {} : { wait_ms }),
        ...(collection === undefined ? {} : { collection }),
        signal: AbortSignal.any([gone.signal, closing, revoked.signal]),
      })
      if (revoked.signal.aborted) return unauthorized(reply, 'the token was revoked or has expired')
      observer.sent('poll', page.events.length)
      return page
    } finally {
      unwatch()
      observer.closed('poll')
      reply.raw.off('close', onClose)
    }
  }
}
