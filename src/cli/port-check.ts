// `serve` finds out whether it can listen before it opens (and so creates) the database
// directory: a port in use, or an address not of this machine, fails with nothing
// created (docs/operations.md, "Starting the server"). A probe listener is opened and
// closed at once; listening on the same port right after works (no connection was made,
// so nothing lingers). Another process taking the port in between is still reported,
// by the real listen, in the same words.
import { createServer } from 'node:net'
import { HeldError } from './held-error.js'

/** Throws what `listen` on host:port would, as a clear error; port 0 always works. */
export async function checkListenable(host: string, port: number): Promise<void> {
  if (port === 0) return
  const probe = createServer()
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject)
      probe.listen({ host, port, exclusive: true }, resolve)
    })
  } catch (err) {
    throw listenError(err, host, port)
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
}

/** A listen failure in words that say what to do; HeldError (exit 2) for a port in use. */
export function listenError(err: unknown, host: string, port: number): Error {
  const code = (err as { code?: unknown }).code
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`
  if (code === 'EADDRINUSE') return new HeldError(`cannot listen on ${at}: the port is in use by another process; stop it, or choose another port (--port, TENANTDB_PORT)`)
  if (code === 'EACCES') return new Error(`cannot listen on ${at}: not permitted (ports below 1024 need privileges); choose another port (--port, TENANTDB_PORT)`)
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new Error(`cannot listen on ${at}: ${host} is not an address of this machine (--host, TENANTDB_HOST)`)
  }
  return err instanceof Error ? err : new Error(String(err))
}
