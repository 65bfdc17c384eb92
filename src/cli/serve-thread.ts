// A worker thread of `tenantdb serve` (docs/architecture.md, "Every core"): the same
// HTTP server as the opening thread's, on the same listening socket, over the database
// that thread opened and shared, attached here. It answers what reads; what would
// commit, a wrong token (the throttle is the opener's) and the opener's own routes go
// to the opening thread through `parentPort` (src/http/threads/). It stops when told:
// accepts nothing more, answers what it has begun, lets go of the database, exits.
import { hostname } from 'node:os'
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { Database, listenSocket, type SharedDatabase } from '../database/index.js'
import { buildServer, serverMetricsOf } from '../http/index.js'
import { OpenerLink, reportTrends, type ToOpener } from '../http/threads/index.js'
import type { ServerMetrics } from '../http/metrics/index.js'
import { thread_tails_close_ms_max } from '../limits.js'
import { LogRelay } from './log-relay.js'
import type { LogLevel } from './serve-options.js'

/** What the opening thread gives each worker (`workerData`). */
export interface ServeThreadData {
  shared: SharedDatabase
  token: string
  host: string
  consoleOrigins: string[]
  allowedHosts: string[]
  logLevel: LogLevel
  /** The port the opening thread listens on: this thread listens there too (SO_REUSEPORT). */
  port: number
}

async function main(): Promise<void> {
  const port = parentPort
  if (port === null) throw new Error('serve-thread runs as a worker thread of tenantdb serve')
  const data = workerData as ServeThreadData
  // The log lines go to the opening thread, written with its own by its one output.
  const destination = new LogRelay((lines) => port.postMessage({ kind: 'log', lines } satisfies ToOpener))
  const db = Database.attach(data.shared)
  let stopping: Promise<void> | null = null
  let metrics: ServerMetrics | null = null
  const link = new OpenerLink(port, {
    commits: (lsn, payload) => db.heard(lsn, payload),
    metrics: async () => metrics?.threadMetrics() ?? [],
    stop: () => { stopping ??= stop() },
  })
  const app = await buildServer({
    db,
    token: data.token,
    consoleOrigins: data.consoleOrigins,
    allowedHosts: data.allowedHosts,
    // Its lines name the thread (the opening thread's name none: docs/operations.md, "Logs").
    logger: { level: data.logLevel, stream: destination, base: { pid: process.pid, hostname: hostname(), thread: threadId } },
    opener: link,
  })
  metrics = serverMetricsOf(app)
  const stopReporting = reportTrends(metrics, db, link)
  // A descriptor, not an address: fastify's listen hands it to the server as it is.
  await app.listen({ fd: listenSocket(data.host, data.port), host: data.host } as { host: string })
  link.send({ kind: 'ready' })

  async function stop(): Promise<void> {
    await app.close()
    // A tail's line is written when its socket has closed, after the closing handshake
    // that app.close() began: waited for, a bounded time.
    const deadline = Date.now() + thread_tails_close_ms_max
    while ((metrics?.tailReaders ?? 0) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
    stopReporting()
    await db.close()
    destination.flush()
    link.send({ kind: 'stopped' })
    port?.close()
  }
}

main().catch((err: unknown) => {
  parentPort?.postMessage({ kind: 'failed', message: (err as Error).message })
  process.exitCode = 1
  parentPort?.close()
})
