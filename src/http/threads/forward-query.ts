// A worker's query route handing a statement that commits to the opening thread
// (docs/architecture.md, "Every core"): the request was checked here, so only the
// statement and its parameters cross, and the answer is written here from the result,
// as the route writes its own. A request forwarded whole (forward.ts) would be parsed,
// authenticated and checked a second time on the thread every commit waits for.
import type { FastifyReply } from 'fastify'
import { answerBody } from '../answer-body.js'
import { sendError, sendErrorBody } from '../errors.js'
import type { ForwardedQuery } from './messages.js'
import { OpenerGoneError, type OpenerLink } from './opener-link.js'

export async function forwardQuery(opener: OpenerLink, query: ForwardedQuery, reply: FastifyReply): Promise<FastifyReply> {
  let outcome
  try {
    outcome = await opener.query(query)
  } catch (err) {
    if (!(err instanceof OpenerGoneError)) throw err
    reply.header('connection', 'close')
    return sendError(reply, 'shutting_down', 'the server is shutting down')
  }
  if (!outcome.ok) return sendErrorBody(reply, outcome.status, outcome.body)
  return reply.type('application/json; charset=utf-8').send(answerBody(outcome.result))
}
