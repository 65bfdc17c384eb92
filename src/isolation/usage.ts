// What each tenant used (docs/operations.md, "Isolation"): counters kept per thread and
// added up on the opening thread (workers post theirs with their figures), which
// serves them in the metrics, health detail, stats, the trends and `db.usage()`.

export interface TenantUsage {
  /** Statements run (finished, failed or refused). */
  statements: number
  rows_examined: number
  rows_written: number
  /** Bytes of the commits' payloads (keys, values and their framing). */
  bytes_written: number
  commits: number
  /** Time statements ran: their elapsed time less what they waited for a turn or a budget. */
  statement_ms: number
  /** Time statements waited for their tenant's budget. */
  budget_wait_ms: number
  /** Statements refused: over a budget, over the storage quota, stopped by a statement limit. */
  rate_limited: number
  quota_exceeded: number
  statement_limit: number
}

type UsageField = keyof TenantUsage

const usage_fields: readonly UsageField[] = [
  'statements', 'rows_examined', 'rows_written', 'bytes_written', 'commits', 'statement_ms', 'budget_wait_ms', 'rate_limited', 'quota_exceeded', 'statement_limit',
]

function emptyUsage(): TenantUsage {
  return { statements: 0, rows_examined: 0, rows_written: 0, bytes_written: 0, commits: 0, statement_ms: 0, budget_wait_ms: 0, rate_limited: 0, quota_exceeded: 0, statement_limit: 0 }
}

export class UsageTable {
  readonly #totals = new Map<string, TenantUsage>()
  /** What this thread counted since the last `drain` (a worker posts it to the opening thread). */
  readonly #fresh = new Map<string, TenantUsage>()
  readonly #tables: Array<Map<string, TenantUsage>>

  /** `posts`: a worker thread's table, whose counts go to the opening thread. */
  constructor(posts = false) {
    this.#tables = posts ? [this.#totals, this.#fresh] : [this.#totals]
  }

  add(tenant: string, delta: Partial<TenantUsage>): void {
    for (const table of this.#tables) {
      let usage = table.get(tenant)
      if (usage === undefined) {
        usage = emptyUsage()
        table.set(tenant, usage)
      }
      for (const field of usage_fields) usage[field] += delta[field] ?? 0
    }
  }

  /**
   * One statement's figures: `add` without a delta object or a loop over every field,
   * on the path of every read (a prepared `get` settles one per call).
   */
  addStatement(tenant: string, rows_examined: number, rows_written: number, bytes_written: number, commits: number, statement_ms: number, budget_wait_ms: number): void {
    for (const table of this.#tables) {
      let usage = table.get(tenant)
      if (usage === undefined) {
        usage = emptyUsage()
        table.set(tenant, usage)
      }
      usage.statements += 1
      usage.rows_examined += rows_examined
      usage.rows_written += rows_written
      usage.bytes_written += bytes_written
      usage.commits += commits
      usage.statement_ms += statement_ms
      usage.budget_wait_ms += budget_wait_ms
    }
  }

  /** Counts what another thread counted (`drain` there). */
  merge(deltas: ReadonlyArray<[string, TenantUsage]>): void {
    for (const [tenant, delta] of deltas) this.add(tenant, delta)
  }

  /** What was counted since the last drain, and a fresh start. */
  drain(): Array<[string, TenantUsage]> {
    const out = [...this.#fresh]
    this.#fresh.clear()
    return out
  }

  get(tenant: string): TenantUsage {
    return { ...(this.#totals.get(tenant) ?? emptyUsage()) }
  }

  entries(): IterableIterator<[string, TenantUsage]> {
    return this.#totals.entries()
  }

  /** A deleted tenant's usage goes with it (a tenant of the same name later starts at 0). */
  forget(tenant: string): void {
    this.#totals.delete(tenant)
    this.#fresh.delete(tenant)
  }
}
