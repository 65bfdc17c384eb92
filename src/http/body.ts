// Request bodies, whatever their content type (docs/api.md): the bytes must be
// well-formed UTF-8, and a body that is JSON reaches the route's schema as its value,
// any other as its text (the query route takes text as the query itself; the ops
// route refuses it as a tenant operation that is not an object). Decoding leniently would replace each bad sequence with
// U+FFFD, so distinct keys (`acct-\xff`, `acct-\xfe`) would become one. A byte-order
// mark is kept as sent.
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { HttpError } from './errors.js'

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

export function decodeBody(body: Buffer): string {
  try {
    return utf8.decode(body)
  } catch {
    throw new HttpError('bad_request', 'the request body is not well-formed UTF-8')
  }
}

/** The value of a body that is JSON, else its text. */
export function bodyValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The bytes of each request's body as received, for a worker thread that forwards it (threads/). */
const raw_bodies = new WeakMap<IncomingMessage, Buffer>()

/** The request's body as received, or null for none (kept only when `keepRaw`). */
export function rawBodyOf(request: FastifyRequest): Buffer | null {
  return raw_bodies.get(request.raw) ?? null
}

export function jsonOrTextBodies(app: FastifyInstance, keepRaw = false): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if (keepRaw) raw_bodies.set(request.raw, body as Buffer)
    try {
      done(null, bodyValue(decodeBody(body as Buffer)))
    } catch (err) {
      done(err as Error, undefined)
    }
  })
}
