// Request bodies, whatever their content type (docs/api.md): the bytes must be
// well-formed UTF-8, and a body that is JSON reaches the route's schema as its value,
// any other as its text (the query route takes text as the query itself; the ops
// route refuses it as a tenant operation that is not an object). Decoding leniently would replace each bad sequence with
// U+FFFD, so distinct keys (`acct-\xff`, `acct-\xfe`) would become one. A byte-order
// mark is kept as sent.
import type { FastifyInstance } from 'fastify'
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

export function jsonOrTextBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, bodyValue(decodeBody(body as Buffer)))
    } catch (err) {
      done(err as Error, undefined)
    }
  })
}
