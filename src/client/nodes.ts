// Which node of a cluster a request goes to (docs/client.md, "Clusters";
// docs/replication.md). A read that could not reach a node is sent to the next one (a
// read changes nothing, so sending it again is safe); the node that answered is tried
// first next time. A write goes to the primary as far as the client knows: a follower
// answers 421 `not_primary` naming the primary, and the write is sent there instead,
// at most client_primary_hops_max times, and the primary is remembered. A write that got
// no answer is never sent again: it may have been applied. But the next write goes to
// the next node, whose answer (it took the write, or 421 naming the new primary) finds
// where writes go after a failover, without the caller doing anything.
import { client_primary_hops_max } from '../limits.js'
import { withDeadline } from './deadline.js'
import { TenantdbError } from './errors.js'
import { refused } from './refusal.js'
import { send, type FetchFunction, type Request, type Transport } from './transport.js'

export interface NodesOptions extends Transport {
  urls: readonly string[]
  timeout_ms: number
}

export class Nodes {
  readonly #options: NodesOptions
  /** Where the last read was answered: reads start there. */
  #reader = 0
  /** The primary a follower named; writes start there. */
  #primary: string | undefined

  constructor(options: NodesOptions) {
    if (options.urls.length === 0) throw refused('bad_request', 'connect needs url or urls: at least one node')
    this.#options = options
  }

  /** What the change feed needs to reach the nodes itself (tail.ts). */
  get connection(): { urls: string[]; token: string; fetch: FetchFunction } {
    return { urls: [...this.#options.urls], token: this.#options.token, fetch: this.#options.fetch }
  }

  /** The primary writes go to now: the one a follower last named, else the first URL. */
  get primary(): string {
    return this.#primary ?? (this.#options.urls[0] as string)
  }

  /** A request that changes nothing: each node in turn until one answers. */
  read(request: Request, signal: AbortSignal | undefined): Promise<unknown> {
    const urls = this.#options.urls
    return withDeadline(this.#options.timeout_ms, signal, async (deadline) => {
      let last: unknown
      for (let i = 0; i < urls.length; i++) {
        const at = (this.#reader + i) % urls.length
        try {
          const body = await send(this.#options, urls[at] as string, request, deadline)
          this.#reader = at
          return body
        } catch (err) {
          if (!(err instanceof TenantdbError) || err.code !== 'network_error') throw err
          last = err
        }
      }
      throw last
    })
  }

  /** The node after `url` in the list (the first for a URL not in it): where writes go once `url` could not be reached. */
  #after(url: string): string {
    const urls = this.#options.urls
    return urls[(urls.indexOf(url) + 1) % urls.length] as string
  }

  /** A request that may change something: to the primary, following a follower's 421 a few hops. */
  write(request: Request, signal: AbortSignal | undefined): Promise<unknown> {
    return withDeadline(this.#options.timeout_ms, signal, async (deadline) => {
      let target = this.primary
      for (let hops = 0; ; hops++) {
        try {
          const body = await send(this.#options, target, request, deadline)
          if (hops > 0) this.#primary = target
          return body
        } catch (err) {
          if (err instanceof TenantdbError && err.code === 'network_error') this.#primary = this.#after(target)
          const next = primaryNamed(err)
          if (next === undefined || next === target || hops >= client_primary_hops_max) throw err
          target = next
        }
      }
    })
  }
}

/** The primary a 421 `not_primary` names (`details.primary`), when it names one. */
function primaryNamed(err: unknown): string | undefined {
  if (!(err instanceof TenantdbError) || err.code !== 'not_primary' || err.status !== 421) return undefined
  const primary = err.details.primary
  return typeof primary === 'string' && primary !== '' ? primary : undefined
}
