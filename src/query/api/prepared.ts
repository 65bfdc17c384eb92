// A prepared statement (docs/api.md, "Prepared statements"): one query text of one
// tenant, parsed once, checked once per shape of its parameters, and run many times.
// Reads are synchronous, as better-sqlite3's are: `get` and `all` plan the statement
// and read one snapshot (the engine's head, held only for the call) on the calling
// stack, with no promise, no await and no async generator between the caller and the
// engine; `iterate` streams a scan of any size a batch at a time. Writes (`run`) go
// through the query runner and settle when durable, like `tenant.query`; an insert's
// `runSync` commits on the calling thread and returns once durable.
//
// The checked statement is kept per parameter shape (check-cache.ts), so a statement
// is checked again only when the types of its parameters change.
import type { Statement, Value } from '../../lang/ast.js'
import { query_rows_max, query_time_ms_max, result_bytes_max } from '../../limits.js'
import type { Committer } from '../../txn/index.js'
import type { Row } from '../exec/index.js'
import { readBatchesSync, streamBatches, streamRawBatches, type BatchRead } from '../exec/index.js'
import type { Checked, CheckedStatement } from '../check/index.js'
import { CheckCache } from '../check/index.js'
import type { EvalContext } from '../values/index.js'
import { QueryError } from '../errors.js'
import { deadline } from '../pace/index.js'
import { planTemplate, type Plan } from '../plan/index.js'
import { withoutAnswered } from '../plan/index.js'
import { pointStagesOnly, readPoints } from '../exec/index.js'
import type { QueryResult } from '../exec/index.js'
import { ResultBytes } from '../exec/index.js'
import type { SchemaIR } from '../../schema/ir.js'
import type { Snapshot } from '../../txn/index.js'
import type { Governor } from '../../isolation/index.js'
import type { TenantLimits } from '../../tenants/index.js'

/** What a prepared statement needs of its runner (run.ts: its schema, committer, tenant gate and run). */
export interface PreparedContext {
  schema: { ir: SchemaIR }
  committer: Committer
  gate: { ready(tenant: string): Promise<void> | undefined; checkStatement(snapshot: Snapshot, tenant: string): void; limits(snapshot: Snapshot, tenant: string): TenantLimits | undefined }
  /** The tenants' budgets and usage (src/isolation/). */
  governor: Governor
  run(tenant: string, text: string, params: Record<string, Value>, options: { time_ms_max?: number }, checker: (params: Record<string, Value>) => Checked): Promise<QueryResult>
  /** An insert or upsert run and committed on this thread (run.ts, `runSync`). */
  runSync(tenant: string, checked: Checked, options: { time_ms_max?: number }): QueryResult
}

/** A row as `get`, `all` and `iterate` return it: its columns by name. */
export type ResultRow = Record<string, Value>

export class PreparedStatement {
  readonly tenant: string
  readonly text: string
  readonly #statement: Statement
  readonly #ctx: PreparedContext
  readonly #checks: CheckCache
  readonly #time_ms_max: number
  /** The plan of each checked form (null: not a synchronous read), made on its first read. */
  readonly #plans = new WeakMap<object, ((ctx: EvalContext) => Plan) | null>()

  /** `checks`: the checked forms of `text` (shared with the runner's statement cache). */
  constructor(ctx: PreparedContext, tenant: string, text: string, statement: Statement, checks: CheckCache, time_ms_max = query_time_ms_max) {
    this.#ctx = ctx
    this.tenant = tenant
    this.text = text
    this.#statement = statement
    this.#checks = checks
    this.#time_ms_max = time_ms_max
    this.writes = statement.kind === 'insert' || statement.kind === 'upsert' || statement.kind === 'atomic' ||
      (statement.kind === 'pipeline' && ['update', 'delete'].includes(statement.stages.at(-1)?.kind ?? ''))
  }

  /** Whether the statement writes, or may (then only `run` runs it). */
  readonly writes: boolean

  /**
   * Resolves once the tenant's data is ready for this statement (its lazy migration
   * applied). `tenant.prepare` waits for it; call it again only after `get`, `all` or
   * `iterate` refused with `not_allowed_here` because a migration became due (the
   * tenant was replaced by a fork since).
   */
  async ready(): Promise<void> {
    await this.#ctx.gate.ready(this.tenant)
  }

  /** The first row, or undefined when none matches. Synchronous. */
  get(params: Record<string, Value> = {}): ResultRow | undefined {
    return this.#read(params, 1)[0]
  }

  /**
   * Every row (at most `query_rows_max`, and result_bytes_max of them as JSON: more is
   * an error, never a silent cut). Synchronous.
   */
  all(params: Record<string, Value> = {}): ResultRow[] {
    return this.#read(params, query_rows_max)
  }

  /**
   * Every row, streamed a batch at a time however many there are: a full scan needs no
   * paging by key. The snapshot is held until the iteration ends; leave a loop early
   * with `break` (or call `return()`), which releases it. With `{raw: true}` each row
   * is an array of its values in the order of `columns(params)` (better-sqlite3's
   * `raw()`): no object per row, and a row the stages pass as stored is decoded
   * straight into its array.
   */
  iterate(params?: Record<string, Value>, options?: { raw?: false }): Generator<ResultRow, void, undefined>
  iterate(params: Record<string, Value>, options: { raw: true }): Generator<Value[], void, undefined>
  iterate(params: Record<string, Value> = {}, options: { raw?: boolean } = {}): Generator<ResultRow | Value[], void, undefined> {
    return this.#iterate(params, options.raw === true)
  }

  /** The names of the columns a reading pipeline answers, in order (what a raw row's values are). */
  columns(params: Record<string, Value> = {}): string[] {
    return [...this.#plan(params).columns]
  }

  *#iterate(params: Record<string, Value>, raw: boolean): Generator<ResultRow | Value[], void, undefined> {
    const { checked, stages, columns, access, ctx } = this.#plan(params)
    const limits = this.#admit()
    const committer = this.#ctx.committer
    const snapshot = committer.lease()
    const examined = { rows: 0 }
    const started = Date.now()
    try {
      this.#ctx.gate.checkStatement(snapshot, this.tenant)
      const view = snapshot
      if (access.kind === 'points') {
        yield* readPoints(view, access.tree, access.keys, stages, ctx, examined).map((row) => raw ? values(row, columns) : shaped(row, columns))
        return
      }
      if (access.kind !== 'range') throw notSynchronous(checked.statement)
      const read = { view, tree: access.tree, range: access.range, stages, columns, eval: ctx, examined, batch: 1000 }
      const batches = raw ? streamRawBatches(read) : streamBatches(read, (row) => shaped(row, columns))
      for (const batch of batches) {
        for (let i = 0; i < batch.length; i += 1) yield batch[i] as ResultRow | Value[]
      }
    } finally {
      committer.unlease(snapshot)
      this.#settle(limits, examined.rows, started)
    }
  }

  /** Runs the statement as `tenant.query` does (writes settle when durable). */
  run(params: Record<string, Value> = {}): Promise<QueryResult> {
    return this.#ctx.run(this.tenant, this.text, params, { time_ms_max: this.#time_ms_max }, (p) => this.#check(p))
  }

  /**
   * Runs an insert or upsert and commits it on the calling thread: durable when it
   * returns, as better-sqlite3's `run` is (docs/api.md, "Prepared statements"). The
   * thread blocks for the write and its fdatasync, with no hand-off to the storage
   * core's thread and back; commits other callers queued before it share its fsync.
   * For embedders that can wait: a server never calls it (its event loop must stay
   * free). Other statements, a replicated database, a tenant whose budget would make
   * the write wait, or a migration due: `not_allowed_here` / `rate_limited`, nothing
   * written.
   */
  runSync(params: Record<string, Value> = {}): QueryResult {
    this.#requireReady()
    return this.#ctx.runSync(this.tenant, this.#check(params), { time_ms_max: this.#time_ms_max })
  }

  /** Refuses a synchronous call while the tenant's lazy migration is due (it is applied asynchronously). */
  #requireReady(): void {
    const ready = this.#ctx.gate.ready(this.tenant)
    if (ready !== undefined) {
      ready.catch(() => {}) // reported by the next ready() or query
      throw new QueryError('not_allowed_here', `tenant '${this.tenant}' has a schema migration due; await statement.ready() first`)
    }
  }

  /**
   * Its tenant's budgets, for a read that cannot wait (docs/operations.md, "Isolation"):
   * a tenant in debt is refused at once with `rate_limited` (`run()` would wait).
   */
  #admit(): TenantLimits {
    const { governor, committer, gate } = this.#ctx
    const admission = governor.admit(this.tenant, governor.limitsOf(gate.limits(committer.head(), this.tenant)), false)
    if (admission.wait_ms > 0) throw governor.cannotWait(this.tenant, admission)
    return admission.limits
  }

  #settle(limits: TenantLimits, rows_examined: number, started: number): void {
    this.#ctx.governor.settle(this.tenant, limits, { rows_examined, rows_written: 0, bytes_written: 0, commits: 0, ms: Date.now() - started, waited_ms: 0 })
  }

  #read(params: Record<string, Value>, limit: number): ResultRow[] {
    const limits = this.#admit()
    const started = Date.now()
    const examined = { rows: 0 }
    try {
      return this.#readRows(params, limit, limits, examined, started)
    } finally {
      this.#settle(limits, examined.rows, started)
    }
  }

  #readRows(params: Record<string, Value>, limit: number, limits: TenantLimits, examined: { rows: number }, started: number): ResultRow[] {
    const { checked, stages, columns, access, ctx } = this.#plan(params)
    const snapshot = this.#ctx.committer.head()
    this.#ctx.gate.checkStatement(snapshot, this.tenant)
    // A read without writes reads the snapshot itself (no transaction view to overlay).
    const view = snapshot
    // One row (get) is bounded by the largest stored row; all() by the answer's bound.
    const result = limit > 1 ? new ResultBytes(result_bytes_max) : undefined
    let rows: ResultRow[]
    let truncated = false
    if (access.kind === 'points') {
      // Each row is decoded as soon as it is read, so from the read buffer itself.
      transient.snapshot = snapshot
      try {
        rows = readPoints(transient, access.tree, access.keys, stages, ctx, examined).map((row) => shaped(row, columns))
        if (result !== undefined) for (let i = 0; i < Math.min(rows.length, limit); i += 1) result.add(rows[i] as ResultRow)
      } finally {
        transient.snapshot = undefined
      }
      truncated = rows.length > limit
    } else if (access.kind === 'range') {
      const read: BatchRead = {
        view, tree: access.tree, range: access.range, stages, columns, eval: ctx, examined,
        ...deadline(started, this.#time_ms_max, limits.statement_time_ms), rows_max: limit, batch: Math.min(1000, limit + 1),
        ...(result === undefined ? {} : { result }),
      }
      ;({ rows, truncated } = readBatchesSync(read, (row) => shaped(row, columns)))
    } else {
      throw notSynchronous(checked.statement)
    }
    if (truncated && limit > 1) {
      throw new QueryError('not_allowed_here', `more than ${limit} rows match; use iterate() to stream them, or add a take`)
    }
    return rows.length > limit ? rows.slice(0, limit) : rows
  }

  /** The checked statement and its plan, for a read that runs synchronously. */
  #plan(params: Record<string, Value>) {
    this.#requireReady()
    const checked = this.#check(params)
    const statement = checked.statement
    if (statement.kind !== 'pipeline' || this.writes) {
      throw new QueryError('not_allowed_here', 'get, all and iterate run reading pipelines; run writes, atomic blocks and explain with run()')
    }
    const ctx: EvalContext = { params: checked.params, now: new Date(), integerOps: checked.integerOps }
    // Planned once per checked statement (per shape of the parameters): planTemplate.
    let planned = this.#plans.get(statement)
    if (planned === undefined) {
      planned = pointStagesOnly(statement.stages) ? planTemplate(this.tenant, statement.collection, statement.stages) : null
      this.#plans.set(statement, planned)
    }
    if (planned === null) throw notSynchronous(statement)
    const { access, answered } = planned(ctx)
    return { checked, stages: withoutAnswered(statement.stages, answered), columns: statement.output.columns, access, ctx }
  }

  #check(params: Record<string, Value>): Checked {
    return this.#checks.check(this.#statement, this.#ctx.schema.ir, this.text, params)
  }
}

/** Reads of a point read, each a view of the engine's read buffer, decoded before the next (readPoints). */
const transient = {
  snapshot: undefined as Snapshot | undefined,
  get(tree: string, key: Buffer): Buffer | null {
    return (this.snapshot as Snapshot).getTransient(tree, key)
  },
}

function values(row: Row, columns: readonly string[]): Value[] {
  const out = new Array<Value>(columns.length)
  for (let j = 0; j < columns.length; j += 1) out[j] = row[columns[j] as string] ?? null
  return out
}

function shaped(row: Row, columns: readonly string[]): ResultRow {
  const out: ResultRow = {}
  for (const column of columns) out[column] = row[column] ?? null
  return out
}

function notSynchronous(statement: CheckedStatement): QueryError {
  const what = statement.kind === 'pipeline' ? 'a pipeline that reads through an index, sorts, counts, aggregates or removes duplicates' : 'this statement'
  return new QueryError('not_allowed_here', `${what} runs asynchronously: use run() (or tenant.query)`)
}
