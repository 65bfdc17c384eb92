// `tenantdb serve`: open the directory as a Database (taking its lock), resolve the
// token, log the tenants a blocked migration would stop (applying nothing: migration
// is lazy, docs/language.md), listen, and shut down cleanly on SIGTERM/SIGINT: stop
// accepting, let in-flight requests finish (new ones get 503 `shutting_down`), close
// the database (checkpoint, release the lock), exit 0.
import { resolveToken, type ResolvedToken } from '../config/token.js'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../database/index.js'
import type { WorkerPool } from '../http/threads/index.js'
import { log_flush_ms_max, shutdown_grace_ms } from '../limits.js'
import { version } from '../version.js'
import { LogDestination } from './log-destination.js'
import { checkListenable, listenError } from './port-check.js'
import { parseServeOptions, type ServeOptions } from './serve-options.js'
import type { ServeThreadData } from './serve-thread.js'
import { UsageError } from './usage-error.js'

// Log lines go to stdout, and nothing else does (the banner is on stderr). They are
// written asynchronously: a synchronous write per request was a large share of a point
// query's cost (P9). Lines written while one write is in flight are
// coalesced; a SIGKILL can lose the lines not yet written, a clean stop flushes them.
// An output that fails (a full disk) loses lines, never blocks serving
// (docs/operations.md, "Logs").
const log_destination = new LogDestination(1)

export async function serve(argv: string[]): Promise<void> {
  const options = parseServeOptions(argv, process.env)
  // The banner and warnings (stderr) are best effort: an output that fails (a full
  // disk) must not stop the server; the log destination says once that lines are being lost.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})
  // Before the directory is opened, and so created: a port in use leaves nothing behind.
  await checkListenable(options.host, options.port)
  if (options.replication !== null) {
    // Loaded only for a cluster node: a single server never loads the NATS client.
    const { serveReplicated } = await import('./serve-replicated.js')
    return serveReplicated(options, options.replication, { destination: log_destination, open: () => openDatabase(options, true), tokenBanner, afterBanner: options.schema.length === 0 ? no_schema_warning : '' })
  }
  // The server's modules load once the options are checked: a usage mistake is quick.
  const { listenSocket } = await import('../database/index.js')
  const { buildServer } = await import('../http/index.js')
  const db = await openDatabase(options)
  try {
    const dbDir = db.stats().db_dir
    const token = await resolveToken({ flag: options.token, env: process.env.SERVICE_TOKEN, dir: dbDir })
    const app = await buildServer({
      db,
      token: token.token,
      consoleOrigins: options.consoleOrigins,
      allowedHosts: options.allowedHosts,
      metricsTenants: options.isolation.metricsTenants,
      logger: { level: options.logLevel, stream: log_destination },
    })
    for (const { tenant, reason } of await db.blockedMigrations()) app.log.warn({ tenant, reason }, 'migration blocked')
    // On several threads, each listens on a socket of its own with SO_REUSEPORT, so the
    // kernel spreads connections over them (docs/architecture.md, "Every core").
    const listening = options.workers > 1
      ? Promise.resolve().then(() => app.listen({ fd: listenSocket(options.host, options.port), host: options.host } as { host: string }))
      : app.listen({ host: options.host, port: options.port })
    await listening.catch((err: unknown) => {
      throw listenError(err, options.host, options.port)
    })
    // The other threads serve on the same socket once they listen (docs/architecture.md,
    // "Every core"); a signal while they start stops them once started.
    const address = app.server.address()
    const port = typeof address === 'object' && address !== null ? address.port : options.port
    const workers = options.workers > 1 ? startWorkers(app, db, options, token.token, port) : Promise.resolve(null)
    const host = options.host.includes(':') ? `[${options.host}]` : options.host
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      app.log.info({ signal }, 'shutting down')
      const force = setTimeout(() => process.exit(1), shutdown_grace_ms)
      force.unref()
      // Workers first: what they began still reaches this thread's server.
      workers.then((pool) => pool?.stop(), () => {})
        .then(() => app.close())
        .then(() => db.close())
        .then((closed) => {
          // A full disk skipped the final checkpoint: no failure, the WAL holds every
          // acknowledged commit and the next start replays it.
          if (closed.checkpoint_skipped !== null) process.stderr.write(`tenantdb: warning: checkpoint skipped at shutdown (${closed.checkpoint_skipped}); the next start replays the log\n`)
        })
        .then(() => log_destination.end(log_flush_ms_max))
        .then(() => process.exit(0), (err: unknown) => {
          process.stderr.write(`tenantdb: shutdown failed: ${(err as Error).message}\n`)
          process.exit(1)
        })
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
    await workers
    // Only once the handlers are in place: whoever reads the banner may signal at once,
    // and a signal before them would kill the process without a clean stop.
    // The banner goes to stderr with the warnings: stdout holds only the JSON log lines.
    process.stderr.write(`tenantdb ${version} serving ${dbDir}\n  url: http://${host}:${port}/api/v1\n  console: http://${host}:${port}/console/\n${tokenBanner(token)}`)
    if (options.schema.length === 0) process.stderr.write(no_schema_warning)
  } catch (err) {
    await db.close()
    throw err
  }
}

// Once, after the banner: without a schema every tenant has no collections, so the
// first insert of a new user fails with unknown_collection (docs/operations.md,
// "Starting the server").
const no_schema_warning = 'tenantdb: warning: no schema loaded, so tenants have no collections and queries naming one fail with unknown_collection; ' +
  'start it with --schema FILE (or TENANTDB_SCHEMA) to declare them\n'

function tokenBanner(token: ResolvedToken): string {
  const lines = []
  if (token.source === 'generated') lines.push(`  token: ${token.token}  (generated, saved to ${token.file})`)
  else if (token.source === 'file') lines.push(`  token: read from ${token.file}`)
  else lines.push(`  token: from ${token.source === 'flag' ? '--token' : 'SERVICE_TOKEN'}`)
  if (token.warning !== undefined) lines.push(`  warning: ${token.warning}`)
  return `${lines.join('\n')}\n`
}

/** Worker threads, each listening on `port` beside the opening thread (SO_REUSEPORT). */
async function startWorkers(app: FastifyInstance, db: Database, options: ServeOptions, token: string, port: number): Promise<WorkerPool> {
  const { AccessTokens } = await import('../database/index.js')
  const { serverMetricsOf } = await import('../http/index.js')
  const { WorkerPool } = await import('../http/threads/index.js')
  const data: ServeThreadData = {
    shared: db.share(), token, host: options.host, port, consoleOrigins: options.consoleOrigins, allowedHosts: options.allowedHosts, logLevel: options.logLevel,
  }
  return WorkerPool.start({
    count: options.workers - 1,
    entry: new URL('./serve-thread.js', import.meta.url),
    data: { ...data },
    app,
    metrics: serverMetricsOf(app),
    db,
    tokens: AccessTokens.of(db),
    log: (line) => { log_destination.write(line) },
  })
}

async function openDatabase(options: ServeOptions, follower = false): Promise<Database> {
  const { checkpointWalBytes, tailRetentionBytes } = options
  const { Database } = await import('../database/index.js')
  const { SchemaError, SchemaReadError } = await import('../schema/index.js')
  try {
    return await Database.open(options.dir, {
      schema: options.schema,
      ...(follower ? { follower } : {}),
      ...(checkpointWalBytes === undefined ? {} : { checkpointWalBytes }),
      ...(tailRetentionBytes === undefined ? {} : { tailRetentionBytes }),
      isolation: { defaults: options.isolation.tenantLimits, budget_wait_ms_max: options.isolation.budgetWaitMsMax },
    })
  } catch (err) {
    if (err instanceof SchemaReadError || err instanceof SchemaError) throw new UsageError(err.message)
    throw err
  }
}
