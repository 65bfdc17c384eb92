// Each tenant's usage as metrics (docs/operations.md, "Metrics"): what its statements
// used and what it holds, labelled `tenant` with the busiest tenants' names and
// `other` for the rest summed (busiest-tenants.ts), so the series stay bounded. Read
// from `db.usage()` once per scrape, on the opening thread only: it holds every
// thread's counts (the workers post theirs), and a worker's registry never holds these
// series, so a scrape adding the threads' figures up counts each statement once.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Database } from '../../database/index.js'
import { busiestTenants, other_tenants, type RankedUsage, type SummedUsage } from './busiest-tenants.js'

const refusal_codes = ['rate_limited', 'quota_exceeded', 'statement_limit'] as const

/** One ranking per scrape: the collect callbacks of a scrape run together. */
class PerScrape {
  #ranked: RankedUsage | null = null

  constructor(private readonly db: Database, private readonly named: number) {}

  /** Each series' usage by its tenant label. */
  get(): Array<[string, SummedUsage]> {
    if (this.#ranked === null) {
      this.#ranked = busiestTenants(this.db.usage(), this.named)
      queueMicrotask(() => { this.#ranked = null })
    }
    return [...this.#ranked.named.map((r): [string, SummedUsage] => [r.tenant, { ...r, tenants: 1 }]), [other_tenants, this.#ranked.other]]
  }
}

export function registerTenantMetrics(registry: Registry, db: Database, named: number): void {
  const scrape = new PerScrape(db, named)
  const counter = (name: string, help: string, value: (u: SummedUsage) => number) =>
    new Counter({
      name, help, labelNames: ['tenant'], registers: [registry],
      collect() {
        this.reset()
        for (const [tenant, usage] of scrape.get()) this.inc({ tenant }, value(usage))
      },
    })
  const gauge = (name: string, help: string, value: (u: SummedUsage) => number) =>
    new Gauge({
      name, help, labelNames: ['tenant'], registers: [registry],
      collect() {
        this.reset()
        for (const [tenant, usage] of scrape.get()) this.set({ tenant }, value(usage))
      },
    })

  counter('tenantdb_tenant_statements_total', 'Statements run by the tenant (finished, failed or refused).', (u) => u.statements)
  counter('tenantdb_tenant_rows_examined_total', 'Rows the tenant\'s statements examined.', (u) => u.rows_examined)
  counter('tenantdb_tenant_rows_written_total', 'Rows the tenant\'s statements wrote.', (u) => u.rows_written)
  counter('tenantdb_tenant_bytes_written_total', 'Bytes of the tenant\'s commits\' payloads.', (u) => u.bytes_written)
  counter('tenantdb_tenant_commits_total', 'Commits of the tenant\'s statements.', (u) => u.commits)
  counter('tenantdb_tenant_statement_seconds_total', 'Time the tenant\'s statements ran, less what they waited for a turn or a budget.', (u) => u.statement_ms / 1000)
  counter('tenantdb_tenant_budget_wait_seconds_total', 'Time the tenant\'s statements waited for its budgets.', (u) => u.budget_wait_ms / 1000)
  new Counter({
    name: 'tenantdb_tenant_refusals_total',
    help: 'The tenant\'s statements refused or stopped by a limit, by code (rate_limited, quota_exceeded, statement_limit).',
    labelNames: ['tenant', 'code'], registers: [registry],
    collect() {
      this.reset()
      for (const [tenant, usage] of scrape.get()) for (const code of refusal_codes) this.inc({ tenant, code }, usage[code])
    },
  })
  gauge('tenantdb_tenant_live_bytes', 'Key and value bytes the tenant holds (rows and index entries), after every commit so far.', (u) => u.live_bytes)
  gauge('tenantdb_tenant_live_rows', 'Rows the tenant holds, after every commit so far.', (u) => u.live_rows)
}
