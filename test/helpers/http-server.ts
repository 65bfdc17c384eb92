import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { buildServer, type ServerOptions } from '../../src/http/index.js'

export interface RunningServer {
  app: FastifyInstance
  /** e.g. http://127.0.0.1:43123 */
  origin: string
}

/** A real server on 127.0.0.1 and a port the OS picks, closed when the test ends. */
export async function startServer(t: Test, options: Partial<ServerOptions> & { token: string }): Promise<RunningServer> {
  const app = await buildServer({ schema: [], ...options })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const address = app.server.address()
  if (address === null || typeof address !== 'object') throw new Error('server has no address')
  return { app, origin: `http://127.0.0.1:${address.port}` }
}
