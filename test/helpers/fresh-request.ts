// One HTTP request on a connection of its own (`agent: false`, `connection: close`),
// so the kernel may hand it to any of a server's threads (docs/architecture.md,
// "Every core"). The body is parsed as JSON when it is JSON.
import { request as httpRequest } from 'node:http'

export interface FreshAnswer {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

export function freshRequest(origin: string, path: string, token: string, options: { method?: string; json?: unknown } = {}): Promise<FreshAnswer> {
  const url = new URL(path, origin)
  const body = options.json === undefined ? undefined : JSON.stringify(options.json)
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname, port: url.port, path: url.pathname + url.search, agent: false,
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${token}`, connection: 'close', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => {
        let parsed: unknown = text
        try { parsed = JSON.parse(text) } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body: parsed })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}
