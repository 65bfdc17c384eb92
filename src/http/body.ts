// Request bodies reach the routes as text, whatever their content type: the query
// route treats a body that is not JSON as the query text, the others parse JSON
// themselves. The bytes must be well-formed UTF-8: decoding leniently would replace
// each bad sequence with U+FFFD, so distinct keys (`acct-\xff`, `acct-\xfe`) would
// become one. A byte-order mark is kept as sent, as before.
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

export function textBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, decodeBody(body as Buffer))
    } catch (err) {
      done(err as Error, undefined)
    }
  })
}
