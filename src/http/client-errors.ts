// Requests Node's HTTP parser refuses, or that time out, never reach fastify's hooks:
// fastify's `clientErrorHandler` answers them here, in the documented JSON error body
// (docs/api.md), then closes the connection (its parser state is lost):
//   408 request_timeout      the request was not received within request_timeout_ms
//   431 headers_too_large    the header block exceeds Node's limit
//   405 method_not_allowed   a method the parser does not know (with Allow)
//   400 bad_request          any other malformed request
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { canonicalTarget } from './canonical-path.js'
import { errorBody, error_statuses, type ErrorCode } from './errors.js'
import { pathOnly } from './log.js'
import { allowedMethods } from './route-methods.js'

/** Node's parser error (fastify's ConnectionError types rawPacket as a Buffer's JSON). */
interface ParserError extends Error {
  code: string
  rawPacket?: unknown
}

function response(code: ErrorCode, error: string, headers: Record<string, string> = {}): string {
  const status = error_statuses[code]
  const body = JSON.stringify(errorBody(code, error))
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ]
  return `${lines.join('\r\n')}\r\n\r\n${body}`
}

/** The answer to a request whose method the parser refused, from its request line. */
function unknownMethod(app: FastifyInstance, raw: unknown): string {
  const line = /^([^ \r\n]+) ([^ \r\n]+) HTTP\/\d\.\d\r?\n/.exec(Buffer.isBuffer(raw) ? raw.toString('latin1') : '')
  if (line === null) return response('bad_request', 'malformed HTTP request line')
  const target = canonicalTarget(line[2] as string)
  if ('refused' in target) return response('bad_request', target.refused)
  const path = pathOnly(target.url)
  const allowed = allowedMethods(app, path)
  const method = (line[1] as string).slice(0, 32)
  return response('method_not_allowed', `the method ${JSON.stringify(method)} is not supported; allowed on ${path}: ${allowed.join(', ') || 'none'}`, { Allow: allowed.join(', ') })
}

/** fastify's `clientErrorHandler` option; fastify calls it with `this` the server. */
export function clientErrorHandler(this: FastifyInstance, err: ParserError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  this.log.debug({ err }, 'client error')
  // A request whose headers arrived is in flight (its body stalled): answered unless its response began.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage
  let text: string
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') text = response('request_timeout', 'the request was not received in time')
  else if (err.code === 'HPE_HEADER_OVERFLOW') text = response('headers_too_large', 'the request headers are too large')
  else if (err.code === 'HPE_INVALID_METHOD') text = unknownMethod(this, err.rawPacket)
  else text = response('bad_request', `malformed HTTP request (${err.code})`)
  // As Node does: answer only if no response on this connection has started.
  if (socket.writable && (inFlight === undefined || inFlight === null || inFlight.headersSent !== true)) socket.write(text)
  socket.destroy()
}
