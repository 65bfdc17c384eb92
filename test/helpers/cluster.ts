// Nodes of a tenantdb cluster for the replication tests (docs/replication.md): real
// `tenantdb serve --nats ...` child processes on 127.0.0.1, each on a port picked at
// its first start and kept across restarts, sharing one token; killed when the test
// ends. A node's status is its /health/detail `replication`.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { ReplicationStatus } from '../../src/replication/index.js'
import { api, type ApiResponse } from './http-server.js'
import { hang_guard_ms } from './poll.js'
import { spawnCli, type CliProcess } from './spawn-cli.js'
import { tempDir } from './temp-dir.js'
import { startNatsServer } from './nats-server.js'

export const cluster_token = 'cluster-token-cluster-token-0001'

export interface NodeOptions {
  name: string
  /** The NATS URLs, read at each start (a proxy's, a restarted server's). */
  nats: () => string
  cluster?: string
  mode?: 'sync' | 'async'
  leaseMs?: number
  schema: string
  /** The node's directory (default: a fresh one). */
  dir?: string
  extra?: string[]
}

export class ClusterNode {
  readonly name: string
  readonly dir: string
  readonly #t: Test
  readonly #o: NodeOptions
  #port = 0
  #process: CliProcess | null = null
  /** Everything the node's processes wrote, across restarts. */
  output = ''

  constructor(t: Test, options: NodeOptions) {
    this.#t = t
    this.#o = options
    this.name = options.name
    this.dir = options.dir ?? join(tempDir(t, `tenantdb-node-${options.name}-`), 'db')
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`
  }

  get running(): boolean {
    return this.#process !== null
  }

  api(path: string, init: RequestInit & { json?: unknown } = {}): Promise<ApiResponse> {
    return api(this.origin, cluster_token)(path, init)
  }

  /**
   * Every id of `collection`, in order, read in pages (a query answers at most 10 000
   * rows, docs/api.md): a check of "every acknowledged write" must see them all.
   */
  async ids(collection = 'items'): Promise<number[]> {
    const ids: number[] = []
    for (;;) {
      const after = ids.at(-1) ?? Number.MIN_SAFE_INTEGER
      const res = await this.api('/api/v1/t/default/query', { json: { query: `${collection} | where id > $after | sort id | take 5000 | select id`, params: { after } } })
      if (res.status !== 200) throw new Error(`node ${this.name}: reading ${collection} answered ${res.status} ${JSON.stringify(res.body)}`)
      const page = (res.body.rows as number[][]).map(([id]) => id as number)
      ids.push(...page)
      if (page.length < 5000) return ids
    }
  }

  /** Starts the node and waits for its banner (its directory copied or checked, its server listening). */
  async start(): Promise<void> {
    const args = [
      'serve', '--dir', this.dir, '--port', String(this.#port), '--schema', this.#o.schema,
      '--nats', this.#o.nats(), '--cluster', this.#o.cluster ?? 'test', '--node', this.name,
      '--lease-ms', String(this.#o.leaseMs ?? 1000), '--replication', this.#o.mode ?? 'sync', '--log-level', 'warn',
      ...(this.#o.extra ?? []),
    ]
    const child = spawnCli(this.#t, args, { SERVICE_TOKEN: cluster_token })
    this.#process = child
    child.child.stdout?.on('data', (chunk: Buffer) => { this.output += chunk })
    child.child.stderr?.on('data', (chunk: Buffer) => { this.output += chunk })
    void child.exited.then(() => { if (this.#process === child) this.#process = null })
    const match = await child.waitFor(/url: http:\/\/127\.0\.0\.1:(\d+)\/api\/v1/, hang_guard_ms * 2)
    this.#port = Number(match[1])
  }

  async kill9(): Promise<void> {
    const child = this.#process
    this.#process = null
    if (child === null) return
    child.child.kill('SIGKILL')
    await child.exited
  }

  /** SIGTERM, and waits for a clean exit (0). */
  async stop(): Promise<number | string> {
    const child = this.#process
    this.#process = null
    if (child === null) return 0
    child.child.kill('SIGTERM')
    return child.exited
  }

  /** The node's replication status, or null when it does not answer. */
  async status(): Promise<ReplicationStatus | null> {
    if (this.#process === null) return null
    try {
      const res = await this.api('/api/v1/health/detail', { signal: AbortSignal.timeout(5000) })
      return res.status === 200 ? (res.body.replication as ReplicationStatus) : null
    } catch {
      return null
    }
  }
}

export function writeSchema(t: Test, text: string): string {
  const file = join(tempDir(t, 'tenantdb-schema-'), 'schema.eel')
  writeFileSync(file, text)
  return file
}

/** Statuses of every running node (null for one that does not answer). */
export async function statuses(nodes: readonly ClusterNode[]): Promise<Array<ReplicationStatus | null>> {
  return Promise.all(nodes.map((n) => n.status()))
}

/** Waits until exactly one running node is primary (taking writes), and returns it. */
export async function waitForPrimary(nodes: readonly ClusterNode[], options: { hang_guard_ms?: number; above_term?: number } = {}): Promise<{ node: ClusterNode; status: ReplicationStatus }> {
  let found: { node: ClusterNode; status: ReplicationStatus } | null = null
  let last: Array<ReplicationStatus | null> = []
  const deadline = Date.now() + (options.hang_guard_ms ?? hang_guard_ms)
  while (found === null) {
    if (Date.now() > deadline) throw new Error(`hang guard: no primary among ${nodes.map((n) => n.name).join(', ')}: ${JSON.stringify(last)}`)
    last = await statuses(nodes)
    const primaries = last.flatMap((s, i) => (s?.role === 'primary' && s.term > (options.above_term ?? 0) ? [{ node: nodes[i] as ClusterNode, status: s }] : []))
    if (primaries.length === 1) found = primaries[0] ?? null
    else await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return found
}

/** Waits until every one of `nodes` has applied at least `lsn`. */
export async function waitForLsn(nodes: readonly ClusterNode[], lsn: number): Promise<void> {
  const deadline = Date.now() + hang_guard_ms
  for (;;) {
    const last = await statuses(nodes)
    if (last.every((s) => s !== null && s.applied_lsn >= lsn)) return
    if (Date.now() > deadline) throw new Error(`hang guard: not every node at LSN ${lsn}: ${JSON.stringify(last.map((s) => s?.applied_lsn ?? null))}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * A real nats-server and two nodes over `schema`: `a` started first and primary, then
 * `b` its follower. `first` is `a`'s status as primary (its term, for a failover).
 */
export async function primaryAndFollower(t: Test, schema: string, leaseMs: number): Promise<{ a: ClusterNode; b: ClusterNode; first: ReplicationStatus }> {
  const nats = await startNatsServer(t)
  const file = writeSchema(t, schema)
  const a = new ClusterNode(t, { name: 'a', nats: () => nats.url, schema: file, leaseMs })
  await a.start()
  const { status: first } = await waitForPrimary([a])
  const b = new ClusterNode(t, { name: 'b', nats: () => nats.url, schema: file, leaseMs })
  await b.start()
  return { a, b, first }
}
