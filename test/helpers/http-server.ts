import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { Database } from '../../src/database/index.js'
import { buildServer, type ServerOptions } from '../../src/http/index.js'
import { package_root } from '../../src/package-root.js'
import { tempDir } from './temp-dir.js'

/** A real database over examples/schema.eel in a temp dir, closed when the test ends. */
export async function openExampleDatabase(t: Test): Promise<Database> {
  const db = await Database.open(join(tempDir(t), 'db'), { schema: [join(package_root, 'examples', 'schema.eel')] })
  t.teardown(() => db.close())
  return db
}

export interface RunningServer {
  app: FastifyInstance
  /** e.g. http://127.0.0.1:43123 */
  origin: string
  port: number
  db: Database
}

/**
 * A real server on 127.0.0.1 and a port the OS picks, closed when the test ends. Without
 * `db`, it serves a fresh empty database in a temp dir (closed when the test ends).
 */
export async function startServer(t: Test, options: Partial<ServerOptions> & { token: string }): Promise<RunningServer> {
  let db = options.db
  if (db === undefined) {
    const opened = await Database.open(join(tempDir(t), 'db'))
    t.teardown(() => opened.close())
    db = opened
  }
  const app = await buildServer({ ...options, db })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const address = app.server.address()
  if (address === null || typeof address !== 'object') throw new Error('server has no address')
  return { app, origin: `http://127.0.0.1:${address.port}`, port: address.port, db }
}

export interface ApiResponse {
  status: number
  headers: Headers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

/** fetch with the token as a Bearer header; the body parsed as JSON when it is JSON. */
export function api(origin: string, token: string) {
  return async (path: string, init: RequestInit & { json?: unknown } = {}): Promise<ApiResponse> => {
    const { json, headers, ...rest } = init
    const res = await fetch(origin + path, {
      ...rest,
      ...(json === undefined ? {} : { method: rest.method ?? 'POST', body: JSON.stringify(json) }),
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...(headers as Record<string, string> | undefined) },
    })
    const text = await res.text()
    let body: unknown = text
    if ((res.headers.get('content-type') ?? '').startsWith('application/json')) body = JSON.parse(text)
    return { status: res.status, headers: res.headers, body }
  }
}
