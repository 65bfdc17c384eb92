// A tiny static file server on another port, standing for any web server an operator
// might host the console on (served from another origin, listed with
// --console-origin). It serves `dir` at /console/ and nothing else.
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { extname, join, normalize } from 'node:path'
import type { Test } from 'tap'

const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.map': 'application/json' }

/** Serves `dir` at http://127.0.0.1:<port>/console/ until the test ends; returns the origin. */
export async function startStaticServer(t: Test, dir: string): Promise<string> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    const relative = normalize(path.replace(/^\/console\/?/, '') || 'index.html')
    if (!path.startsWith('/console/') || relative.startsWith('..')) {
      response.writeHead(404).end()
      return
    }
    readFile(join(dir, relative)).then(
      (body) => response.writeHead(200, { 'content-type': types[extname(relative)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  const address = server.address()
  if (address === null || typeof address !== 'object') throw new Error('static server has no address')
  return `http://127.0.0.1:${address.port}`
}
