// fetch and WebSocket for a feed whose connections go through a TCP proxy
// (test/helpers/tcp-proxy.ts) to a server that answers only to its own address (the
// Host guard, docs/api.md): the feed is given the server's URL, and these open each
// connection to the proxy's port instead, naming the server's host and port in `Host`.
// fetch cannot set `Host`, so this one is node:http's request behind fetch's interface.
import { request } from 'node:http'
import WebSocket from 'ws'
import type { WebSocketConstructor } from '../../src/client/tail.js'

/** A fetch that sends `GET`s for `127.0.0.1:<server>` to `127.0.0.1:<proxy>`. */
export function proxiedFetch(proxyPort: number): typeof fetch {
  return (async (input: string | URL, init: RequestInit = {}) => {
    const url = new URL(String(input))
    return new Promise<Response>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1', port: proxyPort, path: `${url.pathname}${url.search}`, method: 'GET',
        headers: { ...(init.headers as Record<string, string>), host: url.host },
        ...(init.signal ? { signal: init.signal } : {}),
      }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('aborted', () => reject(new Error('the answer was cut short')))
        res.on('end', () => {
          if (!res.complete) { reject(new Error('the answer was cut short')); return }
          const headers = new Headers()
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value)
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers }))
        })
      })
      req.on('error', reject)
      req.end()
    })
  }) as typeof fetch
}

/** A WebSocket class that connects to `127.0.0.1:<proxy>` for URLs of `127.0.0.1:<server>`. */
export function proxiedWebSocket(serverPort: number, proxyPort: number): WebSocketConstructor {
  const Base = WebSocket as unknown as new (url: string, options: { headers: Record<string, string> }) => object
  return class extends Base {
    constructor(url: string) {
      super(url.replace(`127.0.0.1:${serverPort}/`, `127.0.0.1:${proxyPort}/`), { headers: { host: `127.0.0.1:${serverPort}` } })
    }
  } as unknown as WebSocketConstructor
}
