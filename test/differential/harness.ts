// Runs one case through Eel (QueryRunner over a real Engine) and through SQLite,
// and judges the outcome. Reads compare rows in order; writes compare each
// statement's result, then the whole table, then indexes through queries the planner
// answers from them (two per write in rotation, all of them after loading and at the
// end of a run); expected failures must fail on both sides, leaving both unchanged.
import type { Value } from '../../src/lang/ast.js'
import type { PlanHint, QueryResult, QueryRunner } from '../../src/query/index.js'
import type { CollectionIR } from '../../src/schema/ir.js'
import { diffRows, fromEel, fromSqlRows, show, type Rows } from './compare.js'
import { caseText, recordText, stmtText, type PrintOptions } from './eel-text.js'
import { cmp, field, lit, writes } from './generate.js'
import { collection, fields, others, primary, type Returning, type Case, type Col, type Expr, type Pipeline, type Row, type Stage, type Stmt } from './model.js'
import { insertSql, primaryOrder, readSql, relation, returningCols, riskConditions, sx, type SqlStore, type TranslateOptions, isSqliteConstraint, writeSql } from './sql.js'

export type Status = 'pass' | 'fail'

export interface Verdict {
  status: Status
  /** What differed (fail). */
  message: string
  text: string
  plans: string[]
  /** Whether the case expected (and got) a failure on both sides. */
  failedAlike: boolean
}

export interface DifferOptions {
  /** A deliberately wrong translation, for the self-check that the comparison can fail. */
  mutate?: 'lt-as-le'
}

type EelOutcome = { ok: true; result: QueryResult } | { ok: false; error: unknown }

type StatementResult = Omit<QueryResult, 'results' | 'stats' | 'lsn'>

const affectedCols: Col[] = [{ name: 'affected', ty: 'int' }]

export class Differ {
  readonly runner: QueryRunner
  readonly tenant: string
  readonly store: SqlStore
  readonly ir: CollectionIR
  readonly options: DifferOptions

  constructor(runner: QueryRunner, tenant: string, store: SqlStore, ir: CollectionIR, options: DifferOptions) {
    this.runner = runner
    this.tenant = tenant
    this.store = store
    this.ir = ir
    this.options = options
  }

  translate(baseOrder: readonly string[]): TranslateOptions {
    return this.options.mutate === undefined ? { baseOrder } : { baseOrder, mutate: this.options.mutate }
  }

  async eel(text: string, params: Case['params']): Promise<EelOutcome> {
    try {
      return { ok: true, result: await this.runner.run(this.tenant, text, params as Record<string, Value>) }
    } catch (error) {
      return { ok: false, error }
    }
  }

  /** Puts the rows lookups read in both stores. */
  async loadOthers(rows: Row[]): Promise<string | null> {
    const loaded = await this.eel(`insert ${others} $rows`, { rows })
    if (!loaded.ok) return `loading ${rows.length} others failed in Eel: ${describeError(loaded.error)}`
    for (const row of rows) this.store.run(`INSERT INTO ${others} (id, k, name, w) VALUES (@id, @k, @name, @w)`, row)
    return null
  }

  /** Puts the same rows in both stores (one Eel commit, via a parameter). */
  async load(rows: Row[]): Promise<string | null> {
    if (rows.length === 0) {
      const empty = await this.eel(collection, {})
      return empty.ok ? null : `Eel failed on an empty tenant: ${describeError(empty.error)}`
    }
    const loaded = await this.eel(`insert ${collection} $rows`, { rows })
    if (!loaded.ok) return `loading ${rows.length} rows failed in Eel: ${describeError(loaded.error)}`
    this.store.run(insertSql({ kind: 'insert', rows, param: null, explicitNulls: true }))
    return this.tableDiff('after loading', indexAudits.length)
  }

  async run(c: Case, print: PrintOptions): Promise<Verdict> {
    const text = caseText(c, print)
    const eel = await this.eel(text, c.params)
    // When Eel failed there is no plan in its result; the planner does not look at the
    // data, so `explain` of each statement gives the plan the failed run used.
    const hints = eel.ok ? statementResults(eel.result).map((r) => r.plan) : await this.explainPlans(c)
    const plans = hints.map((h) => (h === undefined ? '-' : `${h.access}${h.index === undefined ? '' : ` ${h.index}`}`))
    const verdict = (status: Status, message: string, failedAlike = false): Verdict => ({ status, message, text, plans, failedAlike })
    const writing = c.stmts.some(writes)
    // Every pipeline reads its collection in primary-key order, whatever the plan.
    const orders = c.stmts.map(() => primaryOrder)
    if (writing) this.store.exec('SAVEPOINT diff')
    const outcome = writing ? await this.checkWrites(c, orders, eel) : this.checkRead(c, orders[0] ?? primaryOrder, eel)
    if (writing) this.store.exec('RELEASE diff')
    return outcome.problem === null ? verdict('pass', '', outcome.failedAlike) : verdict('fail', outcome.problem, outcome.failedAlike)
  }

  async explainPlans(c: Case): Promise<Array<PlanHint | undefined>> {
    const plans: Array<PlanHint | undefined> = []
    for (const stmt of c.stmts) {
      const explained = stmt.kind === 'pipeline' ? await this.eel(`explain ${stmtText(stmt)}`, c.params) : null
      plans.push(explained?.ok === true ? explained.result.plan : undefined)
    }
    return plans
  }

  checkRead(c: Case, order: readonly string[], eel: EelOutcome): { problem: string | null; failedAlike: boolean } {
    const stmt = c.stmts[0] as Pipeline
    const o = this.translate(order)
    if (c.risky) {
      const failing = this.predictFailure(stmt.stages, o, c.params)
      if (failing !== null) {
        const ok = !eel.ok && errorCode(eel.error) === 'type_error' && /division by zero|remainder by zero|overflow/.test(errorMessage(eel.error))
        return { problem: ok ? null : `${failing}, so Eel must fail with type_error; Eel ${describe(eel)}`, failedAlike: ok }
      }
    }
    if (!eel.ok) return { problem: `Eel failed, SQLite did not: ${describeError(eel.error)}`, failedAlike: false }
    const { sql, cols } = readSql(stmt.stages, o)
    const expected = fromSqlRows(this.store.all(sql, c.params), cols)
    const problem = diffRows(fromEel(eel.result), { columns: cols.map((col) => col.name), rows: expected }, cols)
    return { problem, failedAlike: false }
  }

  /**
   * Why the risky stage (the last select or aggregate) must fail, or null. Every row
   * reaching it evaluates every operand; an int sum beyond ±(2^53 - 1) is an integer
   * overflow like any other (docs/language.md).
   */
  predictFailure(stages: readonly Stage[], o: TranslateOptions, params: Case['params']): string | null {
    let at = -1
    stages.forEach((s, i) => { if (s.k === 'select' || s.k === 'aggregate') at = i })
    const stage = stages[at] as Stage & { k: 'select' | 'aggregate' }
    const rel = relation(stages.slice(0, at), o)
    const exprs = stage.k === 'select' ? stage.items.map((i) => i.e) : stage.items.flatMap((i) => (i.arg === null ? [] : [i.arg]))
    const conditions = exprs.flatMap((e) => riskConditions(e, o))
    if (conditions.length > 0) {
      const rows = Number(this.store.all(`SELECT COUNT(*) FROM (${rel.sql}) WHERE ${conditions.join(' OR ')}`, params)[0]?.[0] ?? 0)
      if (rows > 0) return `${rows} row(s) divide by zero or overflow`
    }
    if (stage.k === 'aggregate') {
      const groupBy = stage.by.length === 0 ? '' : ` GROUP BY ${stage.by.map((b) => `"${b}"`).join(', ')}`
      for (const item of stage.items) {
        if (item.fn !== 'sum' || item.arg?.ty !== 'int') continue
        const sums = `SELECT TOTAL(${sx(item.arg, o)}) AS total FROM (${rel.sql})${groupBy}`
        const groups = Number(this.store.all(`SELECT COUNT(*) FROM (${sums}) WHERE abs(total) > 9007199254740991.0`, params)[0]?.[0] ?? 0)
        if (groups > 0) return `${item.name}: the int sum of ${groups} group(s) is beyond ±(2^53 - 1)`
      }
    }
    return null
  }

  async checkWrites(c: Case, orders: ReadonlyArray<readonly string[]>, eel: EelOutcome): Promise<{ problem: string | null; failedAlike: boolean }> {
    const expected: Array<{ rows: Rows; cols: Col[]; unordered?: true }> = []
    let refused: unknown = null
    for (const [i, stmt] of c.stmts.entries()) {
      const o = this.translate(orders[i] ?? primaryOrder)
      try {
        if (stmt.kind === 'pipeline' && !writes(stmt)) {
          const { sql, cols } = readSql(stmt.stages, o)
          expected.push({ rows: { columns: cols.map((col) => col.name), rows: fromSqlRows(this.store.all(sql, c.params), cols) }, cols })
        } else {
          const sql = stmt.kind === 'pipeline' ? writeSql(stmt.stages, o) : insertSql(stmt)
          const back = stmt.kind === 'pipeline' ? (stmt.stages.at(-1) as { returning?: Returning }).returning : stmt.returning
          if (back === undefined) {
            expected.push({ rows: { columns: ['affected'], rows: [[this.store.run(sql, c.params)]] }, cols: affectedCols })
          } else {
            const cols = returningCols(back)
            expected.push({ rows: { columns: cols.map((col) => col.name), rows: fromSqlRows(this.store.all(sql, c.params), cols) }, cols, unordered: true })
          }
        }
      } catch (err) {
        if (!isSqliteConstraint(err)) throw err
        refused = err
        break
      }
    }
    if (refused !== null) {
      // Both refuse, and neither keeps any of the block's writes.
      this.store.exec('ROLLBACK TO diff')
      if (eel.ok || errorCode(eel.error) !== 'constraint_violation') {
        return { problem: `SQLite refused it (${errorMessage(refused)}), so Eel must fail with constraint_violation; Eel ${describe(eel)}`, failedAlike: false }
      }
      return { problem: await this.tableDiff('after the refused write'), failedAlike: true }
    }
    if (!eel.ok) return { problem: `Eel failed, SQLite did not: ${describeError(eel.error)}`, failedAlike: false }
    const actual = statementResults(eel.result)
    for (const [i, want] of expected.entries()) {
      const got = actual[i]
      if (got === undefined) return { problem: `Eel returned no result for statement ${i + 1}`, failedAlike: false }
      // SQLite does not promise the order of RETURNING rows: those compare as sets.
      const problem = want.unordered === true ? diffRows(sortedRows(fromEel(got)), sortedRows(want.rows), want.cols) : diffRows(fromEel(got), want.rows, want.cols)
      if (problem !== null) return { problem: `statement ${i + 1}: ${problem}`, failedAlike: false }
    }
    return { problem: await this.tableDiff('after the write'), failedAlike: false }
  }

  /** Which index audits the next table check runs (they rotate: each write checks two). */
  #audit = 0

  /**
   * The whole table, then indexes through queries the planner answers from them:
   * `audits` of them in rotation (all of them at the end of a run).
   */
  async tableDiff(when: string, audits = 2): Promise<string | null> {
    const all = await this.eel(collection, {})
    if (!all.ok) return `reading the table ${when} failed in Eel: ${describeError(all.error)}`
    const { sql, cols } = readSql([], this.translate(primaryOrder))
    const problem = diffRows(fromEel(all.result), { columns: cols.map((col) => col.name), rows: fromSqlRows(this.store.all(sql), cols) }, cols)
    if (problem !== null) return `table ${when}: ${problem}`
    for (let i = 0; i < Math.min(audits, indexAudits.length); i += 1) {
      const audit = indexAudits[this.#audit++ % indexAudits.length] as (typeof indexAudits)[number]
      const text = stmtText(audit.stmt)
      const got = await this.eel(text, {})
      if (!got.ok) return `index audit ${when} failed in Eel: ${text}: ${describeError(got.error)}`
      if (got.result.plan?.access !== 'index' || got.result.plan.index !== audit.index) {
        return `index audit ${text} was planned as ${show(got.result.plan)}, expected index ${audit.index}`
      }
      const want = readSql(audit.stmt.stages, this.translate(primaryOrder))
      const diff = diffRows(fromEel(got.result), { columns: want.cols.map((col) => col.name), rows: fromSqlRows(this.store.all(want.sql), want.cols) }, want.cols)
      if (diff !== null) return `index ${audit.index} ${when} (${text}): ${diff}`
    }
    return null
  }
}

/**
 * One query per index whose plan must be that index, over every row the index holds
 * (the bounds are below every stored value), in primary-key order (an explicit sort).
 */
const indexAudits: Array<{ index: string; stmt: Pipeline }> = (() => {
  const col = (name: string) => fields.find((f) => f.name === name) as Col
  const lowest: Record<string, string | number> = { s: '', ts: '1000-01-01' }
  const low = (name: string): Expr => cmp('>=', field(col(name)), lit(lowest[name] ?? -1e9, col(name).ty))
  const audit = (index: string, p: Expr): { index: string; stmt: Pipeline } => ({
    index,
    stmt: { kind: 'pipeline', stages: [{ k: 'where', p }, { k: 'sort', keys: [{ e: field(col(primary)), desc: false, explicitAsc: false }] }, { k: 'select', items: [{ name: primary, e: field(col(primary)), bare: true }, { name: 'n', e: field(col(index.split('_')[0] as string)), bare: false }] }] },
  })
  const and = (l: Expr, r: Expr): Expr => ({ k: 'logic', op: 'and', l, r, ty: 'bool' })
  return [
    audit('a', low('a')),
    audit('a', cmp('==', field(col('a')), lit(null, 'int'))),
    audit('f', low('f')),
    audit('s_b', low('s')),
    audit('flag_a', and(cmp('==', field(col('flag')), lit(true, 'bool')), low('a'))),
    audit('flag_a', cmp('==', field(col('flag')), lit(false, 'bool'))),
    audit('u', low('u')),
    audit('ts', low('ts')),
  ]
})()

function sortedRows(rows: Rows): Rows {
  return { columns: rows.columns, rows: [...rows.rows].sort((a, b) => (show(a) < show(b) ? -1 : show(a) > show(b) ? 1 : 0)) }
}

export function statementResults(result: QueryResult): StatementResult[] {
  return result.results ?? [result]
}

export function errorCode(err: unknown): string {
  if (err !== null && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code
  if (err !== null && typeof err === 'object' && 'diagnostics' in err && Array.isArray(err.diagnostics)) {
    return String((err.diagnostics[0] as { code?: unknown } | undefined)?.code ?? 'diagnostic')
  }
  return 'unknown'
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

export function describeError(err: unknown): string {
  const name = err instanceof Error ? err.name : typeof err
  return `${name} ${errorCode(err)}: ${errorMessage(err)}`
}

function describe(eel: EelOutcome): string {
  return eel.ok ? `succeeded with ${show(eel.result.rows.slice(0, 5))}${eel.result.rows.length > 5 ? '…' : ''}` : `failed: ${describeError(eel.error)}`
}

/** The SQL the primary-key translation runs for a case (for failure reports). */
export function caseSql(c: Case): string[] {
  const o: TranslateOptions = { baseOrder: primaryOrder }
  return c.stmts.map((stmt: Stmt) => {
    if (stmt.kind !== 'pipeline') return insertSql(stmt)
    return writes(stmt) ? writeSql(stmt.stages, o) : readSql(stmt.stages, o).sql
  })
}

/** Rows as one Eel insert statement, for reproductions. */
export function rowsText(rows: Row[]): string {
  return `insert ${collection} [${rows.map((r) => recordText(r, false)).join(', ')}]`
}

/**
 * The smallest subset of `rows` (by chunk removal, within a budget of attempts) on
 * which `fails` still holds.
 */
export async function minimizeRows(rows: Row[], fails: (subset: Row[]) => Promise<boolean>, budget = 300): Promise<Row[]> {
  let current = rows
  let chunks = 2
  let tries = 0
  while (current.length > 1 && tries < budget) {
    const size = Math.ceil(current.length / chunks)
    let reduced = false
    for (let at = 0; at < current.length && tries < budget; at += size) {
      const candidate = [...current.slice(0, at), ...current.slice(at + size)]
      tries += 1
      if (await fails(candidate)) {
        current = candidate
        chunks = Math.max(chunks - 1, 2)
        reduced = true
        break
      }
    }
    if (!reduced) {
      if (size === 1) break
      chunks = Math.min(current.length, chunks * 2)
    }
  }
  if (current.length === 1 && tries < budget && (await fails([]))) return []
  return current
}
