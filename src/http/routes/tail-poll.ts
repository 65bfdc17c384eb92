// GET /api/v1/t/:tenant/tail without an upgrade: the HTTP poll form of the change tail
// (seed 4.6, product.md 5) → {events, last_lsn, head_lsn}. `after` is exclusive;
// `wait_ms` (at most tail_wait_ms_max; a larger value is refused, not lowered) long-polls,
// ending early when the client goes away or the server closes.
// The WebSocket form shares the path: server.ts registers this as the route's HTTP
// handler next to the upgrade handler.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Database } from '../../database/index.js'
import { tail_wait_ms_max } from '../../limits.js'
import { intParam, queryOf, stringParam, tenantOf } from './params.js'

export const tail_path = '/api/v1/t/:tenant/tail'

export function tailPollRoute(db: Database, closing: AbortSignal) {
  return async function tailPoll(request: FastifyRequest, reply: FastifyReply) {
    const tenant = tenantOf(request)
    const query = queryOf(request)
    const after = intParam(query, 'after')
    const limit = intParam(query, 'limit')
    const wait_ms = intParam(query, 'wait_ms', tail_wait_ms_max)
    const collection = stringParam(query, 'collection')
    const gone = new AbortController()
    const onClose = () => { if (!reply.raw.writableFinished) gone.abort() }
    reply.raw.once('close', onClose)
    try {
      return await db.tenant(tenant).tail({
        ...(after === undefined ? {} : { after }),
        ...(limit === undefined ? {} : { limit }),
        ...(wait_ms === undefined ? {} : { wait_ms }),
        ...(collection === undefined || collection === '' ? {} : { collection }),
        signal: AbortSignal.any([gone.signal, closing]),
      })
    } finally {
      reply.raw.off('close', onClose)
    }
  }
}
