// `tenantdb serve --nats ...`: the server as a node of a cluster (docs/replication.md).
// The node (src/replication/) opens the directory as a follower, bootstrapping or
// re-seeding it from the primary when it must; the HTTP server serves it; and when the
// node must start again (it lost its term, or its directory diverged), the HTTP server
// closes, the node closes, and both start again on the same port. SIGTERM/SIGINT stop
// it cleanly: a primary hands its lease over before the database closes.
import { access, writeFile } from 'node:fs/promises'
import { resolveToken, type ResolvedToken } from '../config/token.js'
import type { Database } from '../database/index.js'
import { buildServer } from '../http/index.js'
import { log_flush_ms_max, shutdown_grace_ms } from '../limits.js'
import { ReplicationNode, ReplicationSetupError, type NodeLog } from '../replication/index.js'
import { version } from '../version.js'
import type { LogDestination } from './log-destination.js'
import type { ServeOptions } from './serve-options.js'
import type { ReplicationServeOptions } from './serve-replication-options.js'

export interface ReplicatedServeParts {
  destination: LogDestination
  /** Opens the directory as a follower. */
  open: () => Promise<Database>
  tokenBanner: (token: ResolvedToken) => string
  /** Written once after the banner (the warnings serve.ts gives a single server too). */
  afterBanner: string
}

export async function serveReplicated(options: ServeOptions, replication: ReplicationServeOptions, parts: ReplicatedServeParts): Promise<void> {
  const { destination } = parts
  const token = await resolveToken({ flag: options.token, env: process.env.SERVICE_TOKEN, dir: options.dir, generate: false })
  const log = nodeLog(destination, level_numbers[options.logLevel])
  let stopping: (() => void) | null = null
  const stopped = new Promise<'stop'>((resolve) => { stopping = () => resolve('stop') })
  let signalled = false
  const stop = (signal: string) => {
    if (signalled) return
    signalled = true
    log.info('shutting down', { signal })
    const force = setTimeout(() => process.exit(1), shutdown_grace_ms + replication.leaseMs)
    force.unref()
    stopping?.()
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))

  let port = options.port
  let announced = false
  try {
    while (!signalled) {
      const node = await Promise.race([
        ReplicationNode.start(options.dir, { ...replication, token: token.token }, parts.open, log),
        stopped,
      ])
      if (node === 'stop') break
      await restoreTokenFile(token)
      const app = await buildServer({
        db: node.db,
        token: token.token,
        consoleOrigins: options.consoleOrigins,
        allowedHosts: options.allowedHosts,
        metricsTenants: options.isolation.metricsTenants,
        logger: { level: options.logLevel, stream: destination },
        replication: node,
      })
      try {
        await app.listen({ host: options.host, port })
      } catch (err) {
        await node.close()
        throw err
      }
      const address = app.server.address()
      port = typeof address === 'object' && address !== null ? address.port : port
      const host = options.host.includes(':') ? `[${options.host}]` : options.host
      node.run(replication.advertise ?? `http://${host}:${port}`)
      if (!announced) {
        announced = true
        process.stderr.write(`tenantdb ${version} serving ${node.db.stats().db_dir}\n  url: http://${host}:${port}/api/v1\n  console: http://${host}:${port}/console/\n  cluster: ${replication.cluster} as node ${replication.node} (${replication.mode}, NATS ${replication.servers.join(',')})\n${parts.tokenBanner(token)}${parts.afterBanner}`)
      }
      const why = await Promise.race([node.restart, stopped])
      await app.close()
      await node.close()
      if (why === 'stop') break
    }
  } catch (err) {
    if (err instanceof ReplicationSetupError) {
      process.stderr.write(`tenantdb: ${err.message}\n`)
      await destination.end(log_flush_ms_max)
      process.exit(1)
    }
    throw err
  }
  await destination.end(log_flush_ms_max)
  process.exit(0)
}

/** A directory copied again from the primary has no token file: the one this node read is put back. */
async function restoreTokenFile(token: ResolvedToken): Promise<void> {
  if (token.source !== 'file' || token.file === undefined) return
  try {
    await access(token.file)
  } catch {
    await writeFile(token.file, `${token.token}\n`, { mode: 0o600, flag: 'wx' }).catch(() => {})
  }
}

/** pino's numbers for the levels. */
const level_numbers = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const

/** The node's own log lines, in the server's JSON line format (docs/operations.md, "Logs"), from level `lowest` up. */
function nodeLog(destination: LogDestination, lowest: number): NodeLog {
  const write = (level: number, message: string, fields: Record<string, unknown> = {}) => {
    if (level < lowest) return
    destination.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, ...fields, msg: message })}\n`)
  }
  return {
    info: (message, fields) => write(30, message, fields),
    warn: (message, fields) => write(40, message, fields),
  }
}
