// The flags of `tenantdb serve` that make it a node of a cluster (docs/replication.md,
// "Running a cluster"). Without --nats the server runs on its own and none applies.
import { createHash } from 'node:crypto'
import { hostname } from 'node:os'
import { resolve } from 'node:path'
import { lease_ms_default, lease_ms_min } from '../limits.js'
import { cluster_name_pattern, node_id_pattern } from '../replication/names.js'
import { UsageError } from './usage-error.js'

export const replication_flags = {
  nats: { type: 'string' },
  'nats-creds': { type: 'string' },
  'nats-replicas': { type: 'string' },
  cluster: { type: 'string' },
  node: { type: 'string' },
  advertise: { type: 'string' },
  'lease-ms': { type: 'string' },
  replication: { type: 'string' },
} as const

export interface ReplicationServeOptions {
  servers: string[]
  /** A NATS credentials file (or a file holding a token): never the secret itself on the command line. */
  credentialsFile: string | undefined
  replicas: number
  cluster: string
  node: string
  /** The URL other nodes and clients reach this node at; undefined: its listen address. */
  advertise: string | undefined
  leaseMs: number
  mode: 'sync' | 'async'
}

type Values = { [K in keyof typeof replication_flags]?: string | undefined }

/** The replication options, or null when --nats is absent (then no other replication flag may be given). */
export function parseReplicationOptions(values: Values, dir: string): ReplicationServeOptions | null {
  if (values.nats === undefined) {
    const stray = Object.keys(replication_flags).find((flag) => values[flag as keyof Values] !== undefined)
    if (stray !== undefined) throw new UsageError(`--${stray} is only for a node of a cluster: give --nats too`)
    return null
  }
  const servers = values.nats.split(',').map((s) => s.trim()).filter((s) => s !== '')
  if (servers.length === 0 || !servers.every((s) => /^(nats|tls):\/\/[^\s/]+$/.test(s) || /^[^\s/:]+:\d+$/.test(s))) {
    throw new UsageError(`--nats must be NATS server URLs separated by commas, like nats://127.0.0.1:4222, got '${values.nats}'`)
  }
  if (values.cluster === undefined) throw new UsageError('--nats needs --cluster NAME: the cluster this node joins')
  if (!cluster_name_pattern.test(values.cluster)) throw new UsageError(`--cluster must be 1-64 letters, digits, '_' or '-', got '${values.cluster}'`)
  // Stable across restarts of the same directory, so a restarted primary knows its own lease.
  const node = values.node ?? `${hostname()}-${createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 8)}`.replace(/[^A-Za-z0-9_.-]/g, '-')
  if (!node_id_pattern.test(node)) throw new UsageError(`--node must be 1-64 letters, digits, '_', '.' or '-', got '${node}'`)
  let advertise: string | undefined
  if (values.advertise !== undefined) {
    let url: URL
    try {
      url = new URL(values.advertise)
    } catch {
      throw new UsageError(`--advertise must be an http(s) URL like http://10.0.0.5:7070, got '${values.advertise}'`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--advertise must be an http(s) URL like http://10.0.0.5:7070, got '${values.advertise}'`)
    advertise = values.advertise.replace(/\/+$/, '')
  }
  const leaseMs = wholeNumber('--lease-ms', values['lease-ms'], lease_ms_default, lease_ms_min, 3_600_000)
  const replicas = wholeNumber('--nats-replicas', values['nats-replicas'], 1, 1, 5)
  const mode = values.replication ?? 'sync'
  if (mode !== 'sync' && mode !== 'async') throw new UsageError(`--replication must be sync or async, got '${mode}'`)
  return { servers, credentialsFile: values['nats-creds'], replicas, cluster: values.cluster, node, advertise, leaseMs, mode }
}

function wholeNumber(flag: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback
  const n = Number(text)
  if (!/^\d{1,10}$/.test(text) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${text}'`)
  return n
}
