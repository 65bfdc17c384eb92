// HTTP over a raw TCP socket: the request is written byte for byte as given, so no
// client library normalises its path, method or headers on the way out.
import { connect } from 'node:net'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
  /** The server closed the connection (always true unless the deadline passed first). */
  closed: boolean
}

/** A request's bytes: request line, Host, Connection: close, the given headers, and a body. */
export function requestText(method: string, target: string, host: string, headers: Record<string, string> = {}, body?: string | Buffer): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${host}`, 'Connection: close']
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')
  return body === undefined ? head : Buffer.concat([head, Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')])
}

/**
 * Writes `request` to 127.0.0.1:port and reads until the server closes the connection
 * (or `deadlineMs` passes: then `closed` is false). Parses the first response.
 */
export function rawRequest(port: number, request: string | Buffer, deadlineMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let done = false
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    const finish = (closed: boolean) => {
      if (done) return
      done = true
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      const head = end === -1 ? text : text.slice(0, end)
      const [statusLine = '', ...headerLines] = head.split('\r\n')
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0)
      const headers: Record<string, string> = {}
      for (const line of headerLines) {
        const colon = line.indexOf(':')
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
      }
      resolve({ status, headers, body: end === -1 ? '' : Buffer.from(text.slice(end + 4), 'latin1').toString('utf8'), closed })
    }
    const timer = setTimeout(() => { socket.destroy(); finish(false) }, deadlineMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', () => finish(true))
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A server that answers and closes while we still write may reset the connection.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err)
    })
  })
}

/**
 * Writes `request` to 127.0.0.1:port and resolves with the status line's code as soon
 * as the response head has arrived, then ends the connection (for an answer that keeps
 * it open, such as a WebSocket's 101). Fails after `hangGuardMs` without a head.
 */
export function rawResponseStatus(port: number, request: string | Buffer, hangGuardMs = 60_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`hang guard: no response head after ${hangGuardMs} ms`)) }, hangGuardMs)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      const text = Buffer.concat(chunks).toString('latin1')
      if (!text.includes('\r\n\r\n')) return
      clearTimeout(timer)
      socket.destroy()
      resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0))
    })
    socket.on('error', (err) => { clearTimeout(timer); reject(err) })
  })
}

/** The JSON body of a response, or undefined when it is not JSON. */
export function jsonBody(response: RawResponse): Record<string, unknown> | undefined {
  try {
    return JSON.parse(response.body) as Record<string, unknown>
  } catch {
    return undefined
  }
}
