import { parseArgs } from 'node:util'
import { normaliseHostName, normaliseOrigin } from '../http/origin-policy.js'
import { availableParallelism } from 'node:os'
import { checkpoint_wal_bytes_min, serve_threads_max } from '../limits.js'
import { parseReplicationOptions, replication_flags, type ReplicationServeOptions } from './serve-replication-options.js'
import { envValue, flagList } from './env.js'
import { isolation_flags, parseIsolationOptions, type IsolationServeOptions } from './serve-isolation-options.js'
import { UsageError } from './usage-error.js'

export interface ServeOptions {
  dir: string
  host: string
  port: number
  schema: string[]
  token: string | undefined
  /** Origins allowed cross-origin access besides the server's own (repeatable). */
  consoleOrigins: string[]
  /** Host names the server answers besides its listen address (repeatable). */
  allowedHosts: string[]
  /** Checkpoint once this many WAL bytes follow the last one (the engine's default when absent). */
  checkpointWalBytes: number | undefined
  /** WAL bytes kept after a checkpoint for the change tail to resume from (the engine's default when absent). */
  tailRetentionBytes: number | undefined
  /** The lowest level of log line written (docs/operations.md, "Logs"). */
  logLevel: LogLevel
  /** Threads serving HTTP, the opening one included (docs/architecture.md, "Every core"). */
  workers: number
  /** A node of a cluster (--nats and the flags with it), or null (docs/replication.md). */
  replication: ReplicationServeOptions | null
  /** Every tenant's default limits and the budgets' wait (docs/operations.md, "Isolation"). */
  isolation: IsolationServeOptions
}

/** pino's levels, most severe first; `silent` writes none. */
export const log_levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof log_levels)[number]

export const default_port = 7070

export function parseServeOptions(argv: string[], env: NodeJS.ProcessEnv): ServeOptions {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        schema: { type: 'string', multiple: true, default: [] },
        token: { type: 'string' },
        'console-origin': { type: 'string', multiple: true, default: [] },
        'allowed-host': { type: 'string', multiple: true, default: [] },
        'checkpoint-wal-bytes': { type: 'string' },
        'tail-retention-bytes': { type: 'string' },
        'log-level': { type: 'string' },
        workers: { type: 'string' },
        ...replication_flags,
        ...isolation_flags,
      },
      strict: true,
      allowPositionals: false,
    })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const { values } = parsed
  // Each flag wins over its environment variable (docs/operations.md, "Flags and environment variables").
  const dir = values.dir ?? envValue(env, 'TENANTDB_DIR') ?? './data'
  return {
    dir,
    host: values.host ?? envValue(env, 'TENANTDB_HOST') ?? '127.0.0.1',
    port: parsePort(values.port ?? envValue(env, 'TENANTDB_PORT') ?? String(default_port)),
    schema: flagList(values.schema, env, 'TENANTDB_SCHEMA', ':'),
    token: values.token,
    consoleOrigins: flagList(values['console-origin'], env, 'TENANTDB_CONSOLE_ORIGIN', ',').map(parseOrigin),
    allowedHosts: flagList(values['allowed-host'], env, 'TENANTDB_ALLOWED_HOST', ',').map(parseAllowedHost),
    checkpointWalBytes: parseBytes('--checkpoint-wal-bytes', values['checkpoint-wal-bytes'] ?? envValue(env, 'TENANTDB_CHECKPOINT_WAL_BYTES'), checkpoint_wal_bytes_min),
    tailRetentionBytes: parseBytes('--tail-retention-bytes', values['tail-retention-bytes'] ?? envValue(env, 'TENANTDB_TAIL_RETENTION_BYTES'), 0),
    logLevel: parseLogLevel(values['log-level'], envValue(env, 'LOG_LEVEL')),
    workers: parseWorkers(values.workers ?? envValue(env, 'TENANTDB_WORKERS')),
    replication: parseReplicationOptions(replicationValues(values, env), dir),
    isolation: parseIsolationOptions(values, env),
  }
}

/** The machine's cores by default; a cluster node serves on one thread (docs/replication.md). */
function parseWorkers(text: string | undefined): number {
  if (text === undefined) return Math.min(availableParallelism(), serve_threads_max)
  const workers = Number(text)
  if (!/^\d{1,3}$/.test(text) || workers < 1 || workers > serve_threads_max) {
    throw new UsageError(`--workers must be a whole number of threads from 1 to ${serve_threads_max}, got '${text}'`)
  }
  return workers
}

/** --log-level wins over LOG_LEVEL; an empty LOG_LEVEL is none. */
function parseLogLevel(flag: string | undefined, env: string | undefined): LogLevel {
  const [text, source] = flag !== undefined ? [flag, '--log-level'] : env !== undefined ? [env, 'LOG_LEVEL'] : ['info', 'the default']
  const level = log_levels.find((l) => l === text)
  if (level === undefined) throw new UsageError(`${source} must be one of ${log_levels.join(', ')}, got '${text}'`)
  return level
}

function parseOrigin(text: string): string {
  const origin = normaliseOrigin(text)
  if (origin === null) throw new UsageError(`--console-origin must be an origin like http://localhost:5173, got '${text}'`)
  return origin
}

function parseAllowedHost(text: string): string {
  const name = normaliseHostName(text)
  if (name === null) throw new UsageError(`--allowed-host must be a host name or IP address without scheme or port, like tenantdb.lan, got '${text}'`)
  return name
}

function parseBytes(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined
  const bytes = Number(text)
  if (!/^\d{1,15}$/.test(text) || bytes < min) {
    throw new UsageError(`${flag} must be a whole number of bytes, at least ${min}, got '${text}'`)
  }
  return bytes
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`port must be an integer 0-65535, got '${text}'`)
  return port
}

/** The replication flags, each from its variable when not given (--lease-ms: TENANTDB_LEASE_MS). */
function replicationValues(values: Partial<Record<keyof typeof replication_flags, string | undefined>>, env: NodeJS.ProcessEnv): Partial<Record<keyof typeof replication_flags, string>> {
  const out: Partial<Record<keyof typeof replication_flags, string>> = {}
  for (const flag of Object.keys(replication_flags) as Array<keyof typeof replication_flags>) {
    const value = values[flag] ?? envValue(env, `TENANTDB_${flag.toUpperCase().replace(/-/g, '_')}`)
    if (value !== undefined) out[flag] = value
  }
  return out
}
