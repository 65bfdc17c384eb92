// The node's connection to NATS: one connection, reconnecting forever, its JetStream
// handles and the cluster's key-value bucket, and when it last (re)connected: a
// follower counts a lease's time only while it could watch it (lease.ts).
import { readFile } from 'node:fs/promises'
import { connect, credsAuthenticator, tokenAuthenticator, type Authenticator, type NatsConnection } from '@nats-io/transport-node'
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import { Kvm, type KV } from '@nats-io/kv'
import { replication_request_ms, replication_retry_ms } from '../limits.js'
import { clusterNames, type ClusterNames } from './names.js'

export interface LinkOptions {
  servers: string[]
  /** A NATS credentials file (JWT and NKey seed, as `nsc` writes it), or a file holding a token on one line. */
  credentialsFile: string | undefined
  cluster: string
  node: string
  /** Replicas of the stream and the bucket (the NATS cluster's size, up to 5). */
  replicas: number
}

export class NatsLink {
  readonly nc: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly kv: KV
  readonly names: ClusterNames
  #connected = true
  /** performance.now() of the last (re)connection. */
  #connected_at = performance.now()

  private constructor(nc: NatsConnection, jsm: JetStreamManager, kv: KV, names: ClusterNames) {
    this.nc = nc
    this.js = jetstream(nc, { timeout: replication_request_ms })
    this.jsm = jsm
    this.kv = kv
    this.names = names
    void this.#follow()
  }

  /** Connects (waiting for a server, however long) and opens, creating if needed, the cluster's bucket. */
  static async open(options: LinkOptions): Promise<NatsLink> {
    const authenticator = options.credentialsFile === undefined ? undefined : await readCredentials(options.credentialsFile)
    const nc = await connect({
      servers: options.servers,
      name: `tenantdb ${options.cluster}/${options.node}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: replication_retry_ms,
      waitOnFirstConnect: true,
      // A server gone silent (a cut network) is noticed within about two seconds.
      pingInterval: 1000,
      maxPingOut: 2,
      timeout: replication_request_ms,
      ...(authenticator === undefined ? {} : { authenticator }),
    })
    try {
      const names = clusterNames(options.cluster)
      const jsm = await jetstreamManager(nc, { timeout: replication_request_ms })
      const kv = await new Kvm(jetstream(nc, { timeout: replication_request_ms })).create(names.bucket, { history: 1, replicas: options.replicas })
      return new NatsLink(nc, jsm, kv, names)
    } catch (err) {
      await nc.close()
      throw err
    }
  }

  get connected(): boolean {
    return this.#connected
  }

  /** performance.now() of the last (re)connection. */
  get connectedAt(): number {
    return this.#connected_at
  }

  async #follow(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') this.#connected = false
      if (status.type === 'reconnect') {
        this.#connected = true
        this.#connected_at = performance.now()
      }
    }
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close()
  }
}

async function readCredentials(file: string): Promise<Authenticator> {
  const text = await readFile(file, 'utf8')
  if (text.includes('-----BEGIN NATS USER JWT-----')) return credsAuthenticator(new TextEncoder().encode(text))
  const token = text.trim()
  if (token === '' || token.includes('\n')) throw new Error(`${file} holds neither NATS credentials (a .creds file) nor a token on one line`)
  return tokenAuthenticator(token)
}
