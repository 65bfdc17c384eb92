// Clients writing to a cluster for the replication tests: each inserts rows with ids
// of its own, sends them to the node it believes is the primary, follows a 421's
// `primary`, and looks for the primary among the nodes after a refusal or a dropped
// connection. A write counts as acknowledged only on a 2xx answer.
import type { ClusterNode } from './cluster.js'

export interface Ack {
  id: number
  node: string
  /** Date.now() when the answer arrived. */
  at: number
}

export class ClusterWriters {
  readonly acked: Ack[] = []
  /** Answers other than 2xx, 421 and 503 (which are expected during a failover), with the node. */
  readonly unexpected: string[] = []
  attempts = 0
  #stopped = false
  #next_id = 1
  readonly #nodes: () => readonly ClusterNode[]
  readonly #running: Promise<void>[]

  constructor(nodes: () => readonly ClusterNode[], clients: number, options: { pause_ms?: number } = {}) {
    this.#nodes = nodes
    this.#running = Array.from({ length: clients }, () => this.#client(options.pause_ms ?? 0))
  }

  /** Acknowledged writes since `at` (Date.now()). */
  ackedSince(at: number): number {
    let n = 0
    for (let i = this.acked.length - 1; i >= 0 && (this.acked[i] as Ack).at >= at; i--) n++
    return n
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await Promise.all(this.#running)
  }

  async #client(pause_ms: number): Promise<void> {
    let target: ClusterNode | undefined
    while (!this.#stopped) {
      target ??= this.#nodes().find((n) => n.running)
      if (target === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        continue
      }
      const id = this.#next_id++
      this.attempts++
      let res
      try {
        res = await target.api('/api/v1/t/default/query', { json: { query: 'insert items $row', params: { row: { id, v: id } } }, signal: AbortSignal.timeout(10_000) })
      } catch {
        // Killed, restarting or cut off: the outcome is unknown; try another node.
        target = this.#other(target)
        await new Promise((resolve) => setTimeout(resolve, 10))
        continue
      }
      if (res.status === 200) {
        this.acked.push({ id, node: target.name, at: Date.now() })
        if (pause_ms > 0) await new Promise((resolve) => setTimeout(resolve, pause_ms))
        continue
      }
      if (res.status === 421 && typeof res.body.primary === 'string') {
        target = this.#nodes().find((n) => n.running && n.origin === res.body.primary) ?? this.#other(target)
      } else if (res.status === 421 || res.status === 503) {
        target = this.#other(target)
      } else {
        this.unexpected.push(`${target.name}: ${res.status} ${JSON.stringify(res.body)}`)
        target = this.#other(target)
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  #other(from: ClusterNode): ClusterNode | undefined {
    const running = this.#nodes().filter((n) => n.running)
    if (running.length === 0) return undefined
    const at = running.indexOf(from)
    return running[(at + 1) % running.length]
  }
}
