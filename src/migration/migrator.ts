// Lazy migration (docs/language.md, "Lazy migration"): a tenant is brought to the
// loaded schema when a query or the collections route first touches it, once per
// process, as one atomic commit through the committer. The schema route never
// migrates, so a tenant whose data predates the schema shows `pending` until touched.
// A migration that cannot be applied is blocked: nothing is written, and every query
// of the tenant fails with `migration_blocked` and the reason, until the schema or the
// data changes (a restart with another schema, or the tenant deleted).
import { ConflictError } from '../mvcc/index.js'
import { QueryError } from '../query-error.js'
import type { SchemaIR } from '../schema/ir.js'
import type { Committer, Snapshot } from '../txn/index.js'
import { TxnView } from '../txn/index.js'
import { KeyedMutex } from './keyed-mutex.js'
import { appliedSchema, migrate } from './migrate.js'

export interface MigrationTarget {
  ir: SchemaIR
  fingerprint: string
}

/** Whether `tenant` exists in `snapshot`: a tenant that does not is never migrated. */
export type TenantExists = (snapshot: Snapshot, tenant: string) => boolean

/**
 * A migrator that applies nothing (a database opened at a tenant's applied schema,
 * docs/language.md "Lazy migration"): a tenant is ready when its applied fingerprint is
 * `fingerprint` (null: never migrated, as that tenant), and blocked otherwise.
 */
export interface FrozenAt {
  tenant: string
  fingerprint: string | null
}

export class Migrator {
  readonly #committer: Committer
  readonly #target: MigrationTarget
  readonly #exists: TenantExists
  readonly #locks = new KeyedMutex()
  /** Tenants whose migration to the loaded schema is blocked, with the reason. */
  readonly #blocked = new Map<string, string>()
  readonly #migrated = new Set<string>()
  readonly #frozen: FrozenAt | undefined

  constructor(committer: Committer, target: MigrationTarget, exists: TenantExists = () => true, frozen?: FrozenAt) {
    this.#committer = committer
    this.#target = target
    this.#exists = exists
    this.#frozen = frozen
  }

  /** Resolves once `tenant` is at the loaded schema; undefined when it is known to be already. */
  ready(tenant: string): Promise<void> | undefined {
    return this.#migrated.has(tenant) ? undefined : this.ensure(tenant)
  }

  /**
   * Brings a tenant to the loaded schema once per process, as one atomic commit. A
   * migration racing a change of the tenant's state (a suspend, a delete) fails with
   * `conflict`, having changed nothing.
   */
  async ensure(tenant: string): Promise<void> {
    if (this.#migrated.has(tenant)) return
    const blocked = this.#blocked.get(tenant)
    if (blocked !== undefined) throw new QueryError('migration_blocked', blocked)
    try {
      await this.#locks.run(tenant, async () => {
        if (this.#migrated.has(tenant)) return
        const outcome = await this.#migrate(tenant, 'apply')
        if (typeof outcome === 'object') throw new QueryError('migration_blocked', outcome.blocked)
        if (outcome === 'done') this.#migrated.add(tenant)
      })
    } catch (err) {
      throw err instanceof ConflictError ? new QueryError('conflict', err.message) : err
    }
  }

  /**
   * Whether a migration of `tenant` would be blocked, computed as the migration would
   * be but applying nothing: the reason, or null. A blocked tenant is remembered (its
   * data cannot change until it migrates), so queries fail at once with the reason.
   */
  async check(tenant: string): Promise<string | null> {
    if (this.#migrated.has(tenant)) return null
    const known = this.#blocked.get(tenant)
    if (known !== undefined) return known
    const outcome = await this.#locks.run(tenant, () => this.#migrate(tenant, 'check'))
    return typeof outcome === 'object' ? outcome.blocked : null
  }

  /** The blocked reason of a tenant's migration, if it was tried (or checked) and blocked. */
  blockedReason(tenant: string): string | undefined {
    return this.#blocked.get(tenant)
  }

  /** How many tenants' migrations are known to be blocked (checked at start, or tried). */
  get blockedCount(): number {
    return this.#blocked.size
  }

  /** Forgets what is known of a tenant (after it was deleted or replaced). */
  forget(tenant: string): void {
    this.#migrated.delete(tenant)
    this.#blocked.delete(tenant)
  }

  /** Forgets what is known of every tenant (this node becomes primary after following one). */
  forgetAll(): void {
    this.#migrated.clear()
    this.#blocked.clear()
  }

  /**
   * Runs the migration of `tenant` on the newest version, and commits it when `apply`:
   * `absent` (no such tenant), `done` (at the loaded schema, or would be), or blocked.
   */
  async #migrate(tenant: string, mode: 'apply' | 'check'): Promise<'absent' | 'done' | { blocked: string }> {
    const { ir, fingerprint } = this.#target
    const snapshot = this.#committer.lease()
    try {
      const view = new TxnView(snapshot)
      // Migrating a deleted tenant would bring its meta tree back; the statement's own check reports it.
      if (!this.#exists(snapshot, tenant)) return 'absent'
      const applied = appliedSchema(view, tenant)?.fingerprint ?? null
      if (this.#frozen !== undefined) return this.#frozenOutcome(tenant, applied, this.#frozen)
      if (applied === fingerprint) return 'done'
      const outcome = await migrate(view, tenant, ir, fingerprint, new Date())
      if (outcome.blocked !== null) {
        this.#blocked.set(tenant, outcome.blocked)
        return { blocked: outcome.blocked }
      }
      if (mode === 'check') return 'done'
      await this.#committer.commit(view, tenant, 'migration')
      // A rename or drop moved or removed counters: read them again from the migrated data.
      this.#committer.autoIds.forget(tenant)
      this.#committer.live.forget(tenant)
      return 'done'
    } finally {
      this.#committer.unlease(snapshot)
    }
  }

  /** Frozen: nothing is applied; a tenant at another schema than the one loaded is blocked. */
  #frozenOutcome(tenant: string, applied: string | null, frozen: FrozenAt): 'done' | { blocked: string } {
    if (applied === frozen.fingerprint) return 'done'
    const at = (fp: string | null) => (fp === null ? 'no schema (never migrated)' : `schema ${fp}`)
    const blocked = `the database was opened without schema files, at the schema tenant '${frozen.tenant}' was last migrated to (${at(frozen.fingerprint)}), ` +
      `and tenant '${tenant}' is at ${at(applied)}; nothing is migrated: open it for tenant '${tenant}' (tenantdb query --tenant ${tenant}) or with its schema files (--schema)`
    this.#blocked.set(tenant, blocked)
    return { blocked }
  }
}
