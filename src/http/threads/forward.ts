// How a worker thread hands a request to the opening thread (docs/architecture.md,
// "Every core"): the request as the client sent it (method, URL before the canonical
// rewrite, headers, the body's bytes, the client's address) is run there through the
// same server, every hook included, and its answer (status, headers, body) is sent
// back as it is. Forwarding is safe to do late: a worker never commits, so whatever it
// did before finding that it must forward wrote nothing.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { rawBodyOf } from '../body.js'
import { sendError } from '../errors.js'
import { OpenerGoneError, type OpenerLink } from './opener-link.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Only the opening thread answers the route (its figures are that thread's, or it
     * reads what only that thread holds): a worker thread forwards it (threads/).
     */
    opener?: boolean
  }
}

/** Requests this thread forwarded: the opener logs and counts them, this thread does not. */
const forwarded = new WeakSet<object>()

export function wasForwarded(request: FastifyRequest): boolean {
  return forwarded.has(request.raw)
}

/** Headers about this connection, not the request: the opener's answer has its own. */
const connection_headers = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date', 'upgrade', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol'])

function withoutConnectionHeaders<T>(headers: Record<string, T>): Record<string, T> {
  const kept: Record<string, T> = {}
  for (const [name, value] of Object.entries(headers)) if (!connection_headers.has(name)) kept[name] = value
  return kept
}

export async function forwardRequest(opener: OpenerLink, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  let answer
  forwarded.add(request.raw)
  try {
    answer = await opener.forward({
      method: request.method,
      url: request.originalUrl,
      headers: withoutConnectionHeaders(request.headers),
      body: rawBodyOf(request),
      remote_address: request.ip,
    })
  } catch (err) {
    if (!(err instanceof OpenerGoneError)) throw err
    reply.header('connection', 'close')
    return sendError(reply, 'shutting_down', 'the server is shutting down')
  }
  reply.code(answer.status)
  for (const [name, value] of Object.entries(withoutConnectionHeaders(answer.headers))) {
    if (value !== undefined) reply.header(name, value)
  }
  return reply.send(answer.body)
}

/** preHandler, synchronous: the routes only the opener answers (`config.opener`) are forwarded. */
export function forwardHook(opener: OpenerLink) {
  return function forwardOpenerRoutes(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (request.routeOptions.config.opener !== true) return done()
    forwardRequest(opener, request, reply).catch((err: unknown) => reply.send(err))
  }
}
