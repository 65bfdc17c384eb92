// Each tenant's limits applied to its statements (docs/operations.md, "Isolation"):
// before a statement runs, its tenant's rate budgets (budget-table.ts) say whether it
// may start now, after a wait, or not at all (`rate_limited`, with the budget and when
// to retry); after it ran, what it used is charged and counted (usage.ts). The storage
// quota is the committer's (src/txn/live-usage.ts), the statement limits the
// statement's own (its deadline, its rows examined, its memory).
import { setTimeout as sleep } from 'node:timers/promises'
import { budget_burst_ms, budget_wait_ms_max, turn_weight_rows_per_s } from '../limits.js'
import { QueryError } from '../query-error.js'
import { effectiveLimits, type TenantLimitName, type TenantLimits } from '../tenants/index.js'
import { BudgetTable, nowUs, type BudgetKind } from './budget-table.js'
import type { Priority } from './fair-scheduler.js'
import { UsageTable, type TenantUsage } from './usage.js'

export interface IsolationOptions {
  /** The server's limits for every tenant that sets none of its own (`tenantdb serve --tenant-…`). */
  defaults?: TenantLimits
  /** Longest a statement waits for its tenant's budget before `rate_limited`. */
  budget_wait_ms_max?: number
}

/** What another thread of the process needs to share the budgets (Database.attach). */
export interface SharedIsolation {
  defaults: TenantLimits
  budget_wait_ms_max: number
  budgets: SharedArrayBuffer
}

/** What a statement may do now. */
export interface Admission {
  limits: TenantLimits
  /** Milliseconds to wait first (its budget's debt). */
  wait_ms: number
  priority: Priority
  /** The tenant's shares of turns (fair-scheduler.ts): its reserved read budget / turn_weight_rows_per_s, at least 1. */
  weight: number
}

/** What a statement used, charged to its tenant once it ended. */
export interface Spent {
  rows_examined: number
  rows_written: number
  bytes_written: number
  commits: number
  ms: number
  waited_ms: number
}

/** A ceiling budget and the reserved share beside it, with the table's kind of each. */
const budgets: ReadonlyArray<{ ceiling: TenantLimitName; reserved: TenantLimitName; kind: BudgetKind; reservedKind: BudgetKind; writes: boolean }> = [
  { ceiling: 'commits_per_s', reserved: 'commits_per_s_reserved', kind: 'commits', reservedKind: 'commits_reserved', writes: true },
  { ceiling: 'write_bytes_per_s', reserved: 'write_bytes_per_s_reserved', kind: 'write_bytes', reservedKind: 'write_bytes_reserved', writes: true },
  { ceiling: 'rows_examined_per_s', reserved: 'rows_examined_per_s_reserved', kind: 'rows_examined', reservedKind: 'rows_examined_reserved', writes: false },
]

export class Governor {
  readonly defaults: TenantLimits
  readonly wait_ms_max: number
  readonly table: BudgetTable
  readonly usage: UsageTable
  /** Effective limits per tenant setting (the catalog's records are shared and frozen). */
  readonly #effective = new WeakMap<TenantLimits, TenantLimits>()
  /** Whether the defaults set any budget: without, a tenant without settings is never charged. */
  readonly #defaultBudgets: boolean
  /** The admission of every statement of a tenant with neither settings nor default budgets. */
  readonly #free: Admission

  constructor(options: IsolationOptions = {}, shared?: SharedIsolation) {
    this.defaults = shared?.defaults ?? options.defaults ?? {}
    this.wait_ms_max = shared?.budget_wait_ms_max ?? options.budget_wait_ms_max ?? budget_wait_ms_max
    this.table = new BudgetTable(shared?.budgets)
    this.usage = new UsageTable(shared !== undefined)
    this.#defaultBudgets = hasBudget(this.defaults)
    this.#free = { limits: this.defaults, wait_ms: 0, priority: 'normal', weight: 1 }
  }

  share(): SharedIsolation {
    return { defaults: this.defaults, budget_wait_ms_max: this.wait_ms_max, budgets: this.table.buffer }
  }

  /** The limits that apply to a tenant with `own` settings (none: the defaults). */
  limitsOf(own: TenantLimits | undefined): TenantLimits {
    if (own === undefined) return this.defaults
    let limits = this.#effective.get(own)
    if (limits === undefined) {
      limits = effectiveLimits(this.defaults, own)
      this.#effective.set(own, limits)
    }
    return limits
  }

  /**
   * Whether `tenant` may start a statement now: a commit is taken from its commit
   * budget at once (so concurrent writers queue in order), and a budget in debt
   * (rows examined, bytes written by earlier statements) makes it wait that debt off.
   * Past wait_ms_max it throws `rate_limited`, having charged nothing.
   */
  admit(tenant: string, limits: TenantLimits, writes: boolean): Admission {
    if (limits === this.defaults && !this.#defaultBudgets) return this.#free
    const now = nowUs()
    const wait_us_max = this.wait_ms_max * 1000
    let wait = 0
    for (const b of budgets) {
      const per_s = limits[b.ceiling]
      if (per_s === undefined || (b.writes && !writes)) continue
      const burst = burstUs(per_s)
      const owed = b.kind === 'commits' ? 0 : this.table.debt(tenant, b.kind, burst, now)
      if (owed > wait_us_max) throw this.#refuse(tenant, b.ceiling, per_s, owed)
      wait = Math.max(wait, owed)
    }
    const commits = limits.commits_per_s
    if (writes && commits !== undefined) {
      const got = this.table.charge(tenant, 'commits', 1, commits, burstUs(commits), wait_us_max - wait, now)
      if (got < 0) throw this.#refuse(tenant, 'commits_per_s', commits, -got)
      wait = Math.max(wait, got)
    }
    const weight = Math.max(1, (limits.rows_examined_per_s_reserved ?? 0) / turn_weight_rows_per_s)
    return { limits, wait_ms: wait / 1000, priority: this.#withinReserve(tenant, limits, now) ? 'reserved' : 'normal', weight }
  }

  /**
   * The refusal of a statement that cannot wait (a prepared statement's synchronous
   * read) when its admission says to: `rate_limited`, counted.
   */
  cannotWait(tenant: string, admission: Admission): QueryError {
    return this.#refuse(tenant, 'rows_examined_per_s', admission.limits.rows_examined_per_s ?? 0, admission.wait_ms * 1000)
  }

  /** Waits an admission's wait (the runner counts it in the tenant's usage). */
  async wait(admission: Admission): Promise<void> {
    if (admission.wait_ms <= 0) return
    await sleep(Math.ceil(admission.wait_ms))
  }

  /** Charges and counts what a statement of `tenant` used. */
  settle(tenant: string, limits: TenantLimits, spent: Spent): void {
    this.usage.addStatement(tenant, spent.rows_examined, spent.rows_written, spent.bytes_written, spent.commits, spent.ms, spent.waited_ms)
    let now = -1 // read once, and only when a budget is charged
    for (const b of budgets) {
      const cost = b.kind === 'rows_examined' ? spent.rows_examined : b.kind === 'write_bytes' ? spent.bytes_written : spent.commits
      if (cost <= 0) continue
      const per_s = limits[b.ceiling]
      const reserved = limits[b.reserved]
      if (per_s === undefined && reserved === undefined) continue
      if (now < 0) now = nowUs()
      // The commit itself was taken at admission.
      if (per_s !== undefined && b.kind !== 'commits') this.table.charge(tenant, b.kind, cost, per_s, burstUs(per_s), Infinity, now)
      if (reserved !== undefined) this.table.charge(tenant, b.reservedKind, cost, reserved, burstUs(reserved), Infinity, now)
    }
  }

  /** Counts a statement refused or stopped by a limit. */
  refused(tenant: string, code: 'rate_limited' | 'quota_exceeded' | 'statement_limit'): void {
    this.usage.add(tenant, { [code]: 1 } as Partial<TenantUsage>)
  }

  /** Whether every reserved budget the tenant has is still within its rate (none set: no). */
  #withinReserve(tenant: string, limits: TenantLimits, now: number): boolean {
    let any = false
    for (const b of budgets) {
      const reserved = limits[b.reserved]
      if (reserved === undefined) continue
      any = true
      if (this.table.debt(tenant, b.reservedKind, burstUs(reserved), now) > 0) return false
    }
    return any
  }

  #refuse(tenant: string, budget: TenantLimitName, per_s: number, wait_us: number): QueryError {
    this.refused(tenant, 'rate_limited')
    const retry_after_s = Math.max(1, Math.ceil(wait_us / 1e6))
    return new QueryError('rate_limited', `tenant '${tenant}' is over its budget ${budget} of ${per_s}: retry in ${retry_after_s} s`, { budget, retry_after_s })
  }
}

function burstUs(per_s: number): number {
  // At least one unit's time: a budget below 1000/budget_burst_ms a second still admits one at once.
  return Math.max(budget_burst_ms * 1000, 1e6 / per_s)
}

function hasBudget(limits: TenantLimits): boolean {
  return budgets.some((b) => limits[b.ceiling] !== undefined || limits[b.reserved] !== undefined)
}
