// A PocketBase server child for the HTTP workloads, set up as a user would through
// its own CLI and REST API: `superuser upsert`, `serve`, then with the superuser's
// token a base collection `kv` (text fields `k`, unique index, and `v`) whose list,
// view and create rules are public (""), so the measured requests carry no token.
// Stock settings otherwise: SQLite in WAL mode with synchronous=NORMAL (a commit is
// not durable until a checkpoint), every request logged to its auxiliary database.
import { randomBytes } from 'node:crypto'
import { createServer, type AddressInfo } from 'node:net'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { startChild, type Child } from '../harness/child.js'
import type { Row } from '../harness/data.js'

export interface PocketbaseServer {
  child: Child
  base: string
}

const superuser = 'bench@example.com'

/** A port nobody listens on now (PocketBase wants one named). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function call(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token !== null && { authorization: token }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`PocketBase ${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  return JSON.parse(text) as unknown
}

/** Serves a fresh data directory `dir` with the `kv` collection, empty. */
export async function startPocketbase(binary: string, dir: string): Promise<PocketbaseServer & { token: string }> {
  const data = join(dir, 'pb_data')
  const password = randomBytes(12).toString('hex')
  const upsert = spawnSync(binary, ['superuser', 'upsert', superuser, password, '--dir', data], { encoding: 'utf8' })
  if (upsert.status !== 0) throw new Error(`PocketBase superuser upsert: ${upsert.stderr}${upsert.stdout}`)
  const address = `127.0.0.1:${await freePort()}`
  const child = startChild(binary, ['serve', '--http', address, '--dir', data])
  const base = `http://${address}`
  try {
    await child.waitFor((line) => line.includes('Server started at'))
    const { token } = await call(base, 'POST', '/api/collections/_superusers/auth-with-password', null, { identity: superuser, password }) as { token: string }
    await call(base, 'POST', '/api/collections', token, {
      name: 'kv',
      type: 'base',
      fields: [{ name: 'k', type: 'text', required: true }, { name: 'v', type: 'text' }],
      indexes: ['CREATE UNIQUE INDEX `idx_kv_k` ON `kv` (`k`)'],
      listRule: '',
      viewRule: '',
      createRule: '',
    })
    // The batch API (off by default) loads the rows, 1 000 records a transaction.
    await call(base, 'PATCH', '/api/settings', token, { batch: { enabled: true, maxRequests: 1000, timeout: 120 } })
    return { child, base, token }
  } catch (err) {
    await child.kill()
    throw err
  }
}

/** The record id of row i: 15 characters of [a-z0-9], as PocketBase's ids are. */
export function recordId(i: number): string {
  return String(i).padStart(15, '0')
}

/** Creates `total` rows of `make` through the batch API, row i with id recordId(i). */
export async function loadPocketbaseRows(server: PocketbaseServer & { token: string }, make: (from: number, count: number) => Row[], total: number, chunk = 1000): Promise<void> {
  for (let from = 0; from < total; from += chunk) {
    const requests = make(from, Math.min(chunk, total - from)).map((row, j) => ({ method: 'POST', url: '/api/collections/kv/records', body: { id: recordId(from + j), ...row } }))
    const answers = await call(server.base, 'POST', '/api/batch', server.token, { requests }) as Array<{ status: number }>
    const failed = answers.find((answer) => answer.status !== 200)
    if (answers.length !== requests.length || failed !== undefined) throw new Error(`PocketBase batch load: ${JSON.stringify(failed ?? answers.length)}`)
  }
}

/** The number of records in `kv`. */
export async function countPocketbaseRows(server: PocketbaseServer): Promise<number> {
  const page = await call(server.base, 'GET', '/api/collections/kv/records?perPage=1&fields=id', null) as { totalItems: number }
  return page.totalItems
}
