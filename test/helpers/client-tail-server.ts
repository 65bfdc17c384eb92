// A real in-process server for the client's change-feed tests (test/client-tail-*.test.ts):
// the tail workload's schema (test/helpers/tail-workload.ts) plus a collection nobody
// writes, a service token, and what the tests ask of it besides the feed: the open
// tails the server counts (its `tenantdb_tail_subscribers` gauge), one insert.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Database, type OpenOptions } from '../../src/database/index.js'
import { buildServer } from '../../src/http/index.js'
import { tail_schema } from './tail-workload.js'
import { tempDir } from './temp-dir.js'

export const client_tail_token = 'client-tail-token-0123456789abcdef'
/** `notes` is never written: a feed of `items` and `notes` gets `items`' changes only. */
export const client_tail_schema = `${tail_schema}collection notes { id: int primary, text: string }\n`

export interface TailServer { db: Database; app: FastifyInstance; origin: string; port: number }

export async function startTailServer(t: Test, openOptions: OpenOptions = {}): Promise<TailServer> {
  const dir = tempDir(t, 'tenantdb-client-tail-')
  const schemaFile = join(dir, 'schema.eel')
  writeFileSync(schemaFile, client_tail_schema)
  const db = await Database.open(join(dir, 'db'), { ...openOptions, schema: [schemaFile] })
  t.teardown(() => db.close())
  const app = await buildServer({ token: client_tail_token, schema: [], db })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const address = app.server.address()
  if (address === null || typeof address !== 'object') throw new Error('server has no address')
  return { db, app, origin: `http://127.0.0.1:${address.port}`, port: address.port }
}

/** Inserts one `items` row into tenant `default`; its LSN. */
export async function insertItem(db: Database, id: number): Promise<number> {
  const r = await db.tenant('default').query(`insert items {id: ${id}, writer: 0, v: ${id}}`)
  if (r.lsn === undefined) throw new Error('no commit')
  return r.lsn
}

/** The tails the server has open now, by transport (`websocket`, `poll`), from /metrics. */
export async function openTails(origin: string): Promise<Record<string, number>> {
  const res = await fetch(`${origin}/api/v1/metrics`, { headers: { authorization: `Bearer ${client_tail_token}` } })
  const text = await res.text()
  const open: Record<string, number> = {}
  for (const m of text.matchAll(/^tenantdb_tail_subscribers\{transport="([a-z-]+)"\} (\d+)/gm)) open[m[1] as string] = Number(m[2])
  return open
}
