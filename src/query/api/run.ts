// Running one query text for one tenant: parse, check, execute, and commit writes as
// one engine commit through the committer (src/txn/). Every statement or atomic block
// reads one snapshot for its whole life; writes are validated first-committer-wins and
// become visible once durable. The tenant is made ready first (its lazy migration,
// src/migration/) and checked on the snapshot the statement reads, through the gate
// the database gives.
import { CodecError } from '../../codec/index.js'
import { ConflictError } from '../../mvcc/index.js'
import type { Statement, Value } from '../../lang/ast.js'
import { EelError, diagnostic } from '../../lang/diagnostic.js'
import type { SchemaIR } from '../../schema/ir.js'
import { lookup_hash_bytes_max, query_rows_max, query_time_ms_max, result_bytes_max, statement_memory_bytes_max } from '../../limits.js'
import { TxnView, type Committer, type Snapshot } from '../../txn/index.js'
import type { Checked, CheckedStatement } from '../check/index.js'
import { Transaction, type TransactionOptions } from './transaction.js'
import { QueryError } from '../errors.js'
import { execute, executeInsert, type ExecuteContext, type StatementResult } from '../exec/index.js'
import { deadline, Pace } from '../pace/index.js'
import { PreparedStatement } from './prepared.js'
import { Governor, type Admission } from '../../isolation/index.js'
import { Turns } from './turns.js'
import type { TenantLimits } from '../../tenants/index.js'
import { StatementCache } from '../check/index.js'
import { ResultBytes } from '../exec/index.js'
import { StatementMemory } from '../exec/index.js'
import type { QueryResult } from '../exec/index.js'

export interface LoadedSchema {
  ir: SchemaIR
  fingerprint: string
}

/**
 * What the runner asks of the layers that know tenants (the catalog, lazy migration),
 * so a statement never runs on a tenant it may not run on.
 */
export interface TenantGate {
  /**
   * Resolves once `tenant`'s data is ready for statements (its lazy migration applied),
   * or undefined when it already is (no await on the hot path). Called after the text
   * is parsed, so a syntax error is reported before a migration is tried.
   */
  ready(tenant: string): Promise<void> | undefined
  /**
   * Throws unless a statement may run on `tenant` in `snapshot`, the very snapshot it
   * reads (it exists and is not suspended): a write whose snapshot already holds a
   * suspend or delete fails instead of landing after it (one whose snapshot does not
   * hold it conflicts at commit).
   */
  checkStatement(snapshot: Snapshot, tenant: string): void
  /** The limits set on `tenant` in `snapshot` (src/tenants/tenant-limits.ts), if any. */
  limits(snapshot: Snapshot, tenant: string): TenantLimits | undefined
}

/** Without a gate (a runner without the catalog, in tests), every tenant is ready, may be queried and has no limits of its own. */
const open_gate: TenantGate = { ready: () => undefined, checkStatement: () => {}, limits: () => undefined }

export interface QueryOptions {
  /** Read this snapshot (a named snapshot's pin) instead of the newest version; writes are refused. */
  snapshot?: Snapshot
  /** The time `now()` returns (default: the start of the query). */
  now?: Date
  rows_max?: number
  time_ms_max?: number
  /** Lowers lookup_hash_bytes_max for this statement. */
  lookup_hash_bytes_max?: number
  /** Lowers result_bytes_max for this statement. */
  result_bytes_max?: number
  /** Lowers statement_memory_bytes_max for this statement. */
  statement_memory_bytes_max?: number
}

/** Runs Eel: what queries of one database share is the committer, the schema and the parsed texts. */
export class QueryRunner {
  readonly schema: LoadedSchema
  readonly #committer: Committer
  readonly #gate: TenantGate
  /** Each tenant's budgets and usage (src/isolation/). */
  readonly governor: Governor
  /** Parsed query texts (parsing depends on the text alone). */
  readonly statements = new StatementCache()

  constructor(committer: Committer, schema: LoadedSchema, gate: TenantGate = open_gate, governor = new Governor()) {
    this.#committer = committer
    this.schema = schema
    this.#gate = gate
    this.governor = governor
  }

  /**
   * `text` prepared for `tenant` (docs/api.md, "Prepared statements"): parsed now (a
   * syntax error throws here), checked once per shape of its parameters.
   */
  prepare(tenant: string, text: string, time_ms_max?: number): PreparedStatement {
    const { statement, checks } = this.statements.entry(text)
    refuseDeclarations(statement, text)
    const ctx = { schema: this.schema, committer: this.#committer, gate: this.#gate, governor: this.governor, run: this.run.bind(this), runSync: this.runSync.bind(this) }
    return new PreparedStatement(ctx, tenant, text, statement, checks, time_ms_max)
  }

  /** `checker`: a prepared statement's checks, kept per parameter shape (default: check every time). */
  async run(tenant: string, text: string, params: Record<string, Value> = {}, options: QueryOptions = {}, checker?: (params: Record<string, Value>) => Checked): Promise<QueryResult> {
    // The hot path of every query: no helper is awaited here (an async helper per step
    // cost a promise and a microtask each, measurable on a point read: docs/performance.md).
    const started = Date.now()
    const { statement, checks } = this.statements.entry(text)
    refuseDeclarations(statement, text)
    const ready = this.#gate.ready(tenant)
    if (ready !== undefined) await ready
    // Checked once per parameter shape (check-cache.ts), for queries as for prepared statements.
    const checked = checker === undefined ? checks.check(statement, this.schema.ir, text, params) : checker(params)
    const writes = isWrite(checked.statement)
    if (writes && options.snapshot !== undefined) {
      throw new QueryError('readonly_snapshot', 'writes are not allowed under a snapshot pin; the snapshot is read-only')
    }
    const committer = this.#committer
    const governor = this.governor
    // Its budgets first, before it holds a snapshot: a wait holds no pages.
    const admission = governor.admit(tenant, governor.limitsOf(this.#gate.limits(committer.head(), tenant)), writes)
    let budget_wait_ms = 0
    if (admission.wait_ms > 0) {
      await governor.wait(admission)
      budget_wait_ms = Date.now() - started
    }
    // While other statements wait for a turn, this one waits its own (fair-scheduler.ts).
    const turns = new Turns(tenant, admission)
    const first = turns.start()
    if (first !== undefined) await first
    const limits = admission.limits
    // Held across every await of the statement: its pages stay where they are until it ends.
    const leased = options.snapshot === undefined ? committer.lease() : undefined
    const snapshot = options.snapshot ?? (leased as Snapshot)
    let release: (() => void) | undefined
    let context: ExecuteContext | undefined
    let view: TxnView | undefined
    let lsn: number | undefined
    try {
      if (leased !== undefined) this.#gate.checkStatement(snapshot, tenant)
      // Only a writer is ever validated, so only a writer's snapshot keeps conflict entries alive.
      release = writes ? committer.begin(snapshot.lsn) : undefined
      view = new TxnView(snapshot)
      context = this.#context(tenant, checked, view, started, options.now ?? new Date(started), options, limits, turns)
      const result = await execute(checked.statement, context)
      // Its work is done: the commit's wait for the disk is not a turn's.
      turns.end()
      // A statement that went past a limit between two checks is stopped all the same.
      context.pace.check()
      lsn = view.opCount > 0 ? await committer.commit(view, tenant, 'write', context.eval.now, limits) : undefined
      return shown(result, lsn, { elapsed_ms: Date.now() - started, rows_examined: context.examined.rows })
    } catch (err) {
      const failure = asQueryError(err)
      if (failure instanceof QueryError) countRefusal(governor, tenant, failure)
      throw failure
    } finally {
      turns.end()
      release?.()
      if (leased !== undefined) committer.unlease(leased)
      settleStatement(governor, tenant, limits, context?.examined.rows ?? 0, lsn === undefined ? undefined : view, Date.now() - started - budget_wait_ms - turns.waited_ms, budget_wait_ms)
    }
  }

  /**
   * A checked insert or upsert run and committed on this thread, durable when this
   * returns (a prepared statement's `runSync`; docs/architecture.md, "Synchronous
   * commits"). As `run`, but nothing waits: a tenant whose budget would make it wait is
   * refused (`rate_limited`), and it takes no turns (it never yields the thread).
   */
  runSync(tenant: string, checked: Checked, options: QueryOptions = {}): QueryResult {
    const started = Date.now()
    const statement = checked.statement
    if (statement.kind !== 'insert' && statement.kind !== 'upsert') {
      throw new QueryError('not_allowed_here', 'runSync runs inserts and upserts; run other statements with run()')
    }
    const committer = this.#committer
    const governor = this.governor
    const admission = governor.admit(tenant, governor.limitsOf(this.#gate.limits(committer.head(), tenant)), true)
    if (admission.wait_ms > 0) throw governor.cannotWait(tenant, admission)
    const limits = admission.limits
    const snapshot = committer.lease()
    let release: (() => void) | undefined
    let context: ExecuteContext | undefined
    let view: TxnView | undefined
    let lsn: number | undefined
    try {
      this.#gate.checkStatement(snapshot, tenant)
      release = committer.begin(snapshot.lsn)
      view = new TxnView(snapshot)
      context = this.#context(tenant, checked, view, started, options.now ?? new Date(started), options, limits)
      context.pace.check()
      const result = executeInsert(statement, context)
      context.pace.check()
      lsn = view.opCount > 0 ? committer.commitSync(view, tenant, 'write', context.eval.now, limits) : undefined
      return shown(result, lsn, { elapsed_ms: Date.now() - started, rows_examined: context.examined.rows })
    } catch (err) {
      const failure = asQueryError(err)
      if (failure instanceof QueryError) countRefusal(governor, tenant, failure)
      throw failure
    } finally {
      release?.()
      committer.unlease(snapshot)
      settleStatement(governor, tenant, limits, context?.examined.rows ?? 0, lsn === undefined ? undefined : view, Date.now() - started, 0)
    }
  }

  /**
   * Runs `fn` as one transaction (docs/api.md, "Transactions in code"): every statement
   * it runs through `tx.query` reads one snapshot and sees the writes of the ones before
   * it; when `fn` resolves, the writes commit as one transaction, first-committer-wins.
   * A throw (of `fn` or of a statement) commits nothing. A conflict at commit runs `fn`
   * again on a new snapshot, at most `retries` times, then rejects with `conflict`.
   */
  async transaction<T>(tenant: string, fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const retries = options.retries ?? 0
    if (!Number.isSafeInteger(retries) || retries < 0) throw new QueryError('type_error', `retries must be a whole number of 0 or more, got ${String(retries)}`)
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.#attempt(tenant, fn, options)
      } catch (err) {
        if (!(err instanceof QueryError && err.code === 'conflict') || attempt >= retries) throw err
      }
    }
  }

  async #attempt<T>(tenant: string, fn: (tx: Transaction) => Promise<T>, options: TransactionOptions): Promise<T> {
    const ready = this.#gate.ready(tenant)
    if (ready !== undefined) await ready
    const committer = this.#committer
    const governor = this.governor
    const started = Date.now()
    // A transaction is admitted as one writing statement, and charged as one.
    const admission = governor.admit(tenant, governor.limitsOf(this.#gate.limits(committer.head(), tenant)), true)
    await governor.wait(admission)
    const budget_wait_ms = Date.now() - started
    const limits = admission.limits
    const snapshot = committer.lease()
    const release = committer.begin(snapshot.lsn)
    const examined = { rows: 0 }
    const tx = new Transaction(snapshot, (view, text, params, began) => this.#inTransaction(tenant, view, text, params, began, options, admission, examined))
    let view: TxnView | undefined
    let lsn: number | undefined
    try {
      this.#gate.checkStatement(snapshot, tenant)
      const value = await fn(tx)
      view = await tx.end()
      if (view.opCount > 0) lsn = await committer.commit(view, tenant, 'write', new Date(), limits)
      return value
    } catch (err) {
      await tx.end().catch(() => undefined)
      const failure = asQueryError(err)
      if (failure instanceof QueryError) countRefusal(governor, tenant, failure)
      throw failure
    } finally {
      release()
      committer.unlease(snapshot)
      const written = lsn !== undefined && view !== undefined
      settleStatement(governor, tenant, limits, examined.rows, written ? view : undefined, Date.now() - started - budget_wait_ms, budget_wait_ms)
    }
  }

  async #inTransaction(tenant: string, view: TxnView, text: string, params: Record<string, Value>, started: number, options: TransactionOptions, admission: Admission, examined: { rows: number }): Promise<QueryResult> {
    const { statement, checks } = this.statements.entry(text)
    refuseDeclarations(statement, text)
    const ready = this.#gate.ready(tenant)
    if (ready !== undefined) await ready
    const checked = checks.check(statement, this.schema.ir, text, params)
    // Each statement of a transaction takes its tenant's turns as a statement of its own.
    const turns = new Turns(tenant, admission)
    try {
      await turns.start()
      const context = this.#context(tenant, checked, view, started, new Date(started), options, admission.limits, turns)
      try {
        const result = await execute(checked.statement, context)
        return shown(result, undefined, { elapsed_ms: Date.now() - started, rows_examined: context.examined.rows })
      } finally {
        turns.end()
        examined.rows += context.examined.rows
      }
    } catch (err) {
      throw asQueryError(err)
    }
  }

  /** What `execute` needs for one checked statement, the same for run and transactions. */
  #context(tenant: string, checked: Checked, view: TxnView, started: number, now: Date, options: QueryOptions, limits: TenantLimits = {}, turns?: Turns): ExecuteContext {
    const { deadline_ms, time_limit_ms } = deadline(started, options.time_ms_max ?? query_time_ms_max, limits.statement_time_ms)
    const examined = { rows: 0 }
    const memory_max = Math.min(options.statement_memory_bytes_max ?? statement_memory_bytes_max, statement_memory_bytes_max)
    const tenant_memory = limits.statement_memory_bytes
    return {
      view,
      schema: this.schema.ir,
      tenant,
      eval: { params: checked.params, now, integerOps: checked.integerOps, durationOps: checked.durationOps },
      deadline_ms,
      ...(time_limit_ms === undefined ? {} : { time_limit_ms }),
      pace: new Pace(deadline_ms, Date.now(), {
        ...(turns === undefined ? {} : { turn: turns.next }), examined, ...(time_limit_ms === undefined ? {} : { time_limit_ms }),
        ...(limits.statement_rows_examined === undefined ? {} : { rows_examined_max: limits.statement_rows_examined }),
      }),
      rows_max: options.rows_max ?? query_rows_max,
      examined,
      ids: this.#committer.autoIds,
      lookup_hash_bytes_max: Math.min(options.lookup_hash_bytes_max ?? lookup_hash_bytes_max, lookup_hash_bytes_max),
      result: new ResultBytes(Math.min(options.result_bytes_max ?? result_bytes_max, result_bytes_max)),
      memory: tenant_memory !== undefined && tenant_memory < memory_max ? new StatementMemory(tenant_memory, true) : new StatementMemory(memory_max),
    }
  }
}

/** What a statement used, charged to its tenant; `committed`: its view, when its writes were committed. */
function settleStatement(governor: Governor, tenant: string, limits: TenantLimits, rows_examined: number, committed: TxnView | undefined, ms: number, waited_ms: number): void {
  governor.settle(tenant, limits, {
    rows_examined,
    rows_written: committed?.rowWrites ?? 0,
    bytes_written: committed?.payloadBytes ?? 0,
    commits: committed === undefined ? 0 : 1,
    ms,
    waited_ms,
  })
}

/** A statement stopped by one of its tenant's limits, counted in its usage. */
function countRefusal(governor: Governor, tenant: string, err: QueryError): void {
  if (err.code === 'quota_exceeded') governor.refused(tenant, 'quota_exceeded')
  else if (err.code === 'statement_limit') governor.refused(tenant, 'statement_limit')
}

/** Tenant operations and schema declarations are not queries. */
function refuseDeclarations(statement: Statement, text: string): void {
  if (statement.kind === 'tenant_op' || statement.kind === 'collection_decl' || statement.kind === 'query_decl' || statement.kind === 'drop_collection_decl') {
    const tenantOp = statement.kind === 'tenant_op'
    throw new EelError([diagnostic(text, statement.span, 'not_allowed_here',
      tenantOp ? 'tenant operations are not allowed here' : 'schema declarations are not allowed here',
      { hint: tenantOp ? 'use POST /ops' : 'declare them in a schema file loaded at start' })])
  }
}

/**
 * The response: the statement's result without its `writes` flag, with the LSN of a
 * write. Built field by field (an object rest and spread cost more than a point read).
 */
function shown(result: StatementResult, lsn: number | undefined, stats: QueryResult['stats']): QueryResult {
  const out: Omit<QueryResult, 'stats'> & { stats?: QueryResult['stats'] } = { columns: result.columns, rows: result.rows }
  if (result.plan !== undefined) out.plan = result.plan
  if (result.truncated !== undefined) out.truncated = result.truncated
  const results = (result as Pick<QueryResult, 'results'>).results // atomic blocks only
  if (results !== undefined) out.results = results
  if (lsn !== undefined) out.lsn = lsn
  out.stats = stats // last, as responses always showed it
  return out as QueryResult
}

/** A lost first-committer-wins race, and values the codecs refuse, as the query errors users meet. */
function asQueryError(err: unknown): unknown {
  // Values the codecs refuse (NaN, a lone surrogate, nesting too deep) came from the user.
  if (err instanceof CodecError) return new QueryError('type_error', err.message)
  return err instanceof ConflictError ? new QueryError('conflict', err.message) : err
}

function isWrite(statement: CheckedStatement): boolean {
  switch (statement.kind) {
    case 'insert': case 'upsert': return true
    case 'pipeline': return ['update', 'delete'].includes(statement.stages.at(-1)?.kind ?? '')
    case 'atomic': return statement.statements.some(isWrite)
    case 'explain': return false
  }
}
