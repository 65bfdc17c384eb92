// The server shutting down (docs/operations.md, "Stopping"): from close()
// on (fastify's preClose), a request that still arrives, on a connection the server
// holds, is answered 503 `shutting_down`, and every answer, in-flight ones included,
// says `Connection: close`: a keep-alive connection would otherwise keep close()
// waiting until its idle timeout.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendError } from './errors.js'

export class Shutdown {
  readonly #closing = new AbortController()

  /** Aborted once the server begins to close (long polls and backups end on it). */
  get signal(): AbortSignal {
    return this.#closing.signal
  }

  /** The server begins to close. */
  begin(): void {
    this.#closing.abort()
  }

  /** The request step's part (request-step.ts): 503 once closing; true when it answered. */
  readonly refused = (_request: FastifyRequest, reply: FastifyReply): boolean => {
    if (!this.#closing.signal.aborted) return false
    reply.header('connection', 'close')
    sendError(reply, 'shutting_down', 'the server is shutting down')
    return true
  }

  /** Part of onSend: once closing, the answer ends its connection. */
  closesConnection(reply: FastifyReply): void {
    if (this.#closing.signal.aborted) reply.header('connection', 'close')
  }
}
