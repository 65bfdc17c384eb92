// The real `tenantdb serve` in a child process, as an operator starts it (default
// logging), on a port of its choosing on 127.0.0.1.
import { join } from 'node:path'
import { startChild, type Child } from './child.js'
import { tenantdb_bin } from './paths.js'

export interface ServerChild {
  child: Child
  base: string
  token: string
}

/** Serves `dir`/db with the schema file `schema` (by default `dir`/kv.eel, as openKv left them). */
export async function startTenantdbServer(dir: string, env: NodeJS.ProcessEnv = {}, schema = join(dir, 'kv.eel')): Promise<ServerChild> {
  const token = `bench-${process.hrtime.bigint()}`
  const child = startChild(process.execPath, [
    tenantdb_bin, 'serve', '--dir', join(dir, 'db'), '--schema', schema,
    '--host', '127.0.0.1', '--port', '0', '--token', token,
  ], env)
  const line = await child.waitFor((l) => l.includes('url: http://'))
  const base = /url: (http:\/\/[^/\s]+)/.exec(line)?.[1]
  if (base === undefined) throw new Error(`cannot read the server's address from '${line}'`)
  return { child, base, token }
}
