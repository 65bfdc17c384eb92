// Translates the model (model.ts) to SQLite SQL that reproduces Eel's semantics
// (docs/language.md), not SQL's:
//
// - `==` / `!=` are total: `x IS y` / `x IS NOT y` (null == null is true).
// - `< <= > >=` with a null side are false: `COALESCE(x < y, 0)`.
// - Predicates are two-valued: every boolean the translation produces is 0 or 1,
//   and a bool value used as a predicate counts only when it is true (`x IS 1`), so
//   `not`, `and`, `or` never see NULL.
// - `x in [..]` is false for a null x (and `2 in [1, null]` is false, not NULL).
// - `/` always gives a float: `CAST(x AS REAL) / y`; `%` of floats is fmod (`mod()`),
//   SQLite's `%` would truncate both sides to integers.
// - `+` of two strings concatenates (`||`); lower/upper are Unicode-aware (JS
//   functions registered in SQLite: its built-ins only map ASCII).
// - Timestamps are stored as ms since the epoch; Eel compares a timestamp with an
//   ISO-8601 string as an instant, so a string literal compared with `ts` becomes ms.
// - Order: nulls first ascending, last descending (explicit NULLS FIRST/LAST).
//   Strings compare by BINARY collation = UTF-8 bytes = Unicode code points.
//
// Row order is explicit everywhere: each relation carries `__o`, its rank in the
// order Eel promises. The collection comes in primary-key order; `sort` is stable,
// so it orders by its keys and then the incoming `__o`; `skip`/`take` cut in `__o`
// order; `distinct` keeps each combination's first row (MIN(__o)); `aggregate`
// groups come out in key order. The final SELECT orders by `__o`.
import { createRequire } from 'node:module'
import { collection, fields, primary, sqliteSchema, timestampMs, type AggItem, type Col, type Expr, type Insert, type Returning, type Row, type Scalar, type Stage, type Ty } from './model.js'
import { callSql, lookupSql, scaledDuration } from './sql-more.js'

export interface TranslateOptions {
  /**
   * The order the collection's rows enter the pipeline: the primary key (what Eel
   * promises), or an index's fields then the primary key (what an index scan yields).
   */
  baseOrder: readonly string[]
  /** A deliberately wrong rule, for the self-check that mismatches are caught. */
  mutate?: 'lt-as-le'
}

export const primaryOrder: readonly string[] = [primary]

const q = (name: string) => `"${name.replace(/"/g, '""')}"`

export function sqlLiteral(v: Scalar, ty: Ty): string {
  if (v === null) return 'NULL'
  if (typeof v === 'boolean') return v ? '1' : '0'
  if (typeof v === 'string' && ty === 'timestamp') return sqlLiteral(timestampMs(v), 'int')
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`
  const text = ty === 'float' && Number.isInteger(v) && !String(v).includes('e') ? `${v}.0` : String(v)
  return v < 0 ? `(${text})` : text
}

/** A value expression (booleans as 0/1, possibly NULL for bool fields and params). */
export function sx(e: Expr, o: TranslateOptions): string {
  switch (e.k) {
    case 'lit': return sqlLiteral(e.v, e.ty)
    case 'field': return q(e.name)
    case 'param': return `@${e.name}`
    case 'paren': return sx(e.e, o)
    case 'neg': return `(-${sx(e.e, o)})`
    case 'not': return `(NOT ${truth(e.e, o)})`
    case 'cmp': {
      const l = sx(e.l, o)
      const r = sx(e.r, o)
      if (e.op === '==') return `(${l} IS ${r})`
      if (e.op === '!=') return `(${l} IS NOT ${r})`
      const op = o.mutate === 'lt-as-le' && e.op === '<' ? '<=' : e.op
      return `COALESCE(${l} ${op} ${r}, 0)`
    }
    case 'logic': return `(${truth(e.l, o)} ${e.op === 'and' ? 'AND' : 'OR'} ${truth(e.r, o)})`
    case 'arith': {
      const l = sx(e.l, o)
      const r = sx(e.r, o)
      switch (e.op) {
        case '+': return e.ty === 'string' ? `(${l} || ${r})` : `(${l} + ${r})`
        case '/': return e.ty === 'duration' ? scaledDuration(`(CAST(${l} AS REAL) / ${r})`) : `(CAST(${l} AS REAL) / ${r})`
        case '*': return e.ty === 'duration' ? scaledDuration(`(${l} * ${r})`) : `(${l} * ${r})`
        case '%': return e.l.ty === 'int' && e.r.ty === 'int' ? `(${l} % ${r})` : `mod(${l}, ${r})`
        default: return `(${l} ${e.op} ${r})`
      }
    }
    case 'in': return `COALESCE(${sx(e.e, o)} IN (${e.items.map((i) => sx(i, o)).join(', ')}), 0)`
    case 'call': {
      const args = e.args.map((a) => sx(a, o))
      switch (e.fn) {
        case 'lower': return `eel_lower(${args[0]})`
        case 'upper': return `eel_upper(${args[0]})`
        case 'len': return `length(${args[0]})`
        case 'abs': return `abs(${args[0]})`
        case 'round': return `round(${args.join(', ')})`
        case 'coalesce': return args.length === 1 ? (args[0] as string) : `coalesce(${args.join(', ')})`
        case 'contains': return `COALESCE(instr(${args[0]}, ${args[1]}) > 0, 0)`
        case 'starts_with': return `COALESCE(substr(${args[0]}, 1, length(${args[1]})) = ${args[1]}, 0)`
        default: return callSql(e, args, (x) => truth(x, o))
      }
    }
    case 'dur': return String(e.ms)
    case 'lkfield': return q(`${e.lookup}__${e.field}`)
    case 'lkcount': return q(`${e.lookup}__n`)
  }
}

/** A predicate: always 0 or 1. Eel counts a condition only when it is `true`. */
export function truth(e: Expr, o: TranslateOptions): string {
  switch (e.k) {
    case 'cmp': case 'logic': case 'not': case 'in': return sx(e, o)
    case 'paren': return truth(e.e, o)
    case 'lit': return e.v === true ? '1' : '0'
    case 'call': return ['contains', 'starts_with', 'like', 'matches'].includes(e.fn) ? sx(e, o) : `(${sx(e, o)} IS 1)`
    // Fields, params and null literals may be null: only true counts.
    default: return `(${sx(e, o)} IS 1)`
  }
}

function aggregateSql(item: AggItem, o: TranslateOptions): string {
  if (item.arg === null) return 'COUNT(*)'
  if (item.fn === 'count_distinct') return `COUNT(DISTINCT ${sx(item.arg, o)})`
  return `${item.fn.toUpperCase()}(${sx(item.arg, o)})`
}

export function aggregateType(item: AggItem): Ty {
  if (item.fn === 'count' || item.fn === 'count_distinct') return 'int'
  if (item.fn === 'avg') return 'float'
  return (item.arg as Expr).ty
}

export interface Relation {
  /** A SELECT of `cols` plus `__o`. */
  sql: string
  cols: Col[]
}

/** The rows of the collection after the read stages (no update/delete sink). */
export function relation(stages: readonly Stage[], o: TranslateOptions): Relation {
  let n = 0
  const alias = () => `q${n++}`
  let cols: Col[] = [...fields]
  const order = o.baseOrder.map((f) => `${q(f)} ASC NULLS FIRST`).join(', ')
  let sql = `SELECT ${cols.map((c) => q(c.name)).join(', ')}, ROW_NUMBER() OVER (ORDER BY ${order}) AS __o FROM ${collection}`
  for (const stage of stages) {
    switch (stage.k) {
      case 'where':
        sql = `SELECT * FROM (${sql}) WHERE ${truth(stage.p, o)}`
        break
      case 'get':
        sql = `SELECT * FROM (${sql}) WHERE ${q(primary)} IS ${sx(stage.key, o)}`
        break
      case 'sort': {
        const a = alias()
        const keys = stage.keys.map((k) => `${sx(k.e, o)} ${k.desc ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`)
        sql = `SELECT ${cols.map((c) => q(c.name)).join(', ')}, ROW_NUMBER() OVER (ORDER BY ${[...keys, `${a}.__o`].join(', ')}) AS __o FROM (${sql}) AS ${a}`
        break
      }
      case 'skip':
        sql = `SELECT * FROM (${sql}) ORDER BY __o LIMIT -1 OFFSET ${sx(stage.n, o)}`
        break
      case 'take':
        sql = `SELECT * FROM (${sql}) ORDER BY __o LIMIT ${sx(stage.n, o)}`
        break
      case 'select': {
        const a = alias()
        sql = `SELECT ${stage.items.map((i) => `${sx(i.e, o)} AS ${q(i.name)}`).join(', ')}, ${a}.__o AS __o FROM (${sql}) AS ${a}`
        cols = stage.items.map((i) => ({ name: i.name, ty: i.e.ty }))
        break
      }
      case 'count':
        sql = `SELECT COUNT(*) AS "count", 1 AS __o FROM (${sql})`
        cols = [{ name: 'count', ty: 'int' }]
        break
      case 'aggregate': {
        const aggs = stage.items.map((i) => `${aggregateSql(i, o)} AS ${q(i.name)}`)
        const byCols = stage.by.map((b) => cols.find((c) => c.name === b) as Col)
        if (stage.by.length === 0) {
          sql = `SELECT ${aggs.join(', ')}, 1 AS __o FROM (${sql})`
        } else {
          const by = stage.by.map(q).join(', ')
          const keyOrder = stage.by.map((b) => `${q(b)} ASC NULLS FIRST`).join(', ')
          sql = `SELECT ${by}, ${aggs.join(', ')}, ROW_NUMBER() OVER (ORDER BY ${keyOrder}) AS __o FROM (${sql}) GROUP BY ${by}`
        }
        cols = [...byCols, ...stage.items.map((i) => ({ name: i.name, ty: aggregateType(i) }))]
        break
      }
      case 'distinct': {
        const list = stage.fields.map(q).join(', ')
        sql = `SELECT ${list}, MIN(__o) AS __o FROM (${sql}) GROUP BY ${list}`
        cols = stage.fields.map((f) => cols.find((c) => c.name === f) as Col)
        break
      }
      case 'lookup': {
        const looked = lookupSql(sql, cols, stage, sx(stage.left, o), alias())
        sql = looked.sql
        cols = looked.cols
        break
      }
      case 'update': case 'delete':
        throw new Error(`${stage.k} is a sink, not a read stage`)
    }
  }
  return { sql, cols }
}

/** A read pipeline: its rows in Eel's order, and their columns. */
export function readSql(stages: readonly Stage[], o: TranslateOptions): Relation {
  const rel = relation(stages, o)
  return { sql: `SELECT ${rel.cols.map((c) => q(c.name)).join(', ')} FROM (${rel.sql}) ORDER BY __o`, cols: rel.cols }
}

/** An update or delete pipeline: the rows the stages before the sink select. */
export function writeSql(stages: readonly Stage[], o: TranslateOptions): string {
  const sink = stages.at(-1)
  const chosen = `${q(primary)} IN (SELECT ${q(primary)} FROM (${relation(stages.slice(0, -1), o).sql}))`
  if (sink?.k === 'delete') return `DELETE FROM ${collection} WHERE ${chosen}${returningSql(sink.returning)}`
  if (sink?.k === 'update') {
    return `UPDATE ${collection} SET ${sink.set.map((s) => `${q(s.name)} = ${sx(s.e, o)}`).join(', ')} WHERE ${chosen}${returningSql(sink.returning)}`
  }
  throw new Error('writeSql needs an update or delete sink')
}

/** `insert` refuses an existing primary key; `upsert` replaces the whole row (absent fields become null). */
export function insertSql(stmt: Insert): string {
  const values = stmt.rows.map((row) => `(${fields.map((f) => sqlLiteral(row[f.name] ?? null, f.ty)).join(', ')})`)
  const head = `INSERT INTO ${collection} (${fields.map((f) => q(f.name)).join(', ')}) VALUES ${values.join(', ')}`
  if (stmt.kind === 'insert') return `${head}${returningSql(stmt.returning)}`
  const set = fields.filter((f) => f.name !== primary).map((f) => `${q(f.name)} = excluded.${q(f.name)}`)
  return `${head} ON CONFLICT(${q(primary)}) DO UPDATE SET ${set.join(', ')}${returningSql(stmt.returning)}`
}

function returningSql(returning: Returning | undefined): string {
  if (returning === undefined) return ''
  return ` RETURNING ${(returning === '*' ? fields.map((f) => f.name) : returning).map(q).join(', ')}`
}

/** The columns a write returns. */
export function returningCols(returning: Returning): Col[] {
  return returning === '*' ? [...fields] : returning.map((name) => fields.find((f) => f.name === name) as Col)
}

/** The largest finite double, as SQLite reads it. */
const float_max = '1.7976931348623157e308'

/**
 * For a select with risky arithmetic: a condition true on the rows where Eel must
 * fail. Eel gives null for a null operand before checking, so `null / 0` is null;
 * `x / 0` and `x % 0` with x non-null are errors, and so are an int-typed result
 * beyond ±(2^53 - 1) and a float result beyond the largest double. Every operand of a select item is evaluated (no and/or in
 * risky expressions), so one failing node fails the query.
 */
export function riskConditions(e: Expr, o: TranslateOptions, out: string[] = []): string[] {
  switch (e.k) {
    case 'arith': {
      riskConditions(e.l, o, out)
      riskConditions(e.r, o, out)
      const l = sx(e.l, o)
      const r = sx(e.r, o)
      if (e.op === '/' || e.op === '%') out.push(`(${l} IS NOT NULL AND ${r} = 0)`)
      else if (e.ty === 'int') out.push(`(${l} IS NOT NULL AND ${r} IS NOT NULL AND abs(CAST(${l} AS REAL) ${e.op} ${r}) > 9007199254740991.0)`)
      // A float result beyond the largest double: SQLite's is an infinity, Eel's an error.
      if (e.ty === 'float' && e.op !== '%') {
        out.push(`(${l} IS NOT NULL AND ${r} IS NOT NULL AND ${r} <> 0 AND abs(CAST(${l} AS REAL) ${e.op} ${r}) > ${float_max})`)
      }
      return out
    }
    case 'neg': case 'paren': return riskConditions(e.e, o, out)
    case 'call': {
      if (e.fn === 'if') {
        // Only the branch taken is evaluated: a branch's risk counts where the condition takes it.
        const [c, yes, no] = e.args as [Expr, Expr, Expr]
        riskConditions(c, o, out)
        const taken = truth(c, o)
        for (const x of riskConditions(yes, o, [])) out.push(`(${taken} AND ${x})`)
        for (const x of riskConditions(no, o, [])) out.push(`((NOT ${taken}) AND ${x})`)
        return out
      }
      for (const a of e.args) riskConditions(a, o, out)
      return out
    }
    case 'cmp': case 'logic': riskConditions(e.l, o, out); riskConditions(e.r, o, out); return out
    case 'not': return riskConditions(e.e, o, out)
    case 'in': riskConditions(e.e, o, out); for (const i of e.items) riskConditions(i, o, out); return out
    default: return out
  }
}

// ---- SQLite through better-sqlite3 (typed locally: no @types package is installed) ----

interface SqliteStatement {
  raw(toggle?: boolean): SqliteStatement
  all(...params: unknown[]): unknown[]
  run(...params: unknown[]): { changes: number }
}

interface SqliteDatabase {
  prepare(sql: string): SqliteStatement
  exec(sql: string): void
  function(name: string, options: { deterministic?: boolean }, fn: (...args: unknown[]) => unknown): void
  close(): void
}

const require = createRequire(import.meta.url)
const Sqlite = require('better-sqlite3') as new (path: string) => SqliteDatabase

/** SQLite's error for a constraint (code SQLITE_CONSTRAINT_…), as better-sqlite3 throws it. */
export function isSqliteConstraint(err: unknown): boolean {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT')
}

/** The reference store: the same rows in an in-memory SQLite table. */
export class SqlStore {
  readonly db: SqliteDatabase

  constructor() {
    this.db = new Sqlite(':memory:')
    this.db.exec(sqliteSchema)
    const text = (fn: (s: string) => string) => (s: unknown) => (typeof s === 'string' ? fn(s) : null)
    this.db.function('eel_lower', { deterministic: true }, text((s) => s.toLowerCase()))
    this.db.function('eel_upper', { deterministic: true }, text((s) => s.toUpperCase()))
    // The reference for matches(): JavaScript's backtracking RegExp (Unicode mode) on
    // the patterns the generator uses, which it and RE2 read alike.
    this.db.function('eel_regexp', { deterministic: true }, (p: unknown, s: unknown) => {
      if (typeof p !== 'string' || typeof s !== 'string') return null
      // RE2's leading (?i) is JavaScript's i flag.
      const folded = p.startsWith('(?i)')
      return new RegExp(folded ? p.slice(4) : p, folded ? 'iu' : 'u').test(s) ? 1 : 0
    })
  }

  /** Rows as arrays; only the parameters the text mentions are bound (booleans as 0/1). */
  all(sql: string, params: Record<string, unknown> = {}): Scalar[][] {
    return this.db.prepare(sql).raw(true).all(bind(sql, params)) as Scalar[][]
  }

  run(sql: string, params: Record<string, unknown> = {}): number {
    return this.db.prepare(sql).run(bind(sql, params)).changes
  }

  exec(sql: string): void {
    this.db.exec(sql)
  }

  /** The whole table in primary-key order, as model rows (booleans, ISO timestamps). */
  table(): Row[] {
    return this.all(`SELECT ${fields.map((f) => q(f.name)).join(', ')} FROM ${collection} ORDER BY ${q(primary)}`).map((values) =>
      Object.fromEntries(fields.map((f, i) => {
        const v = fromSql(values[i] ?? null, f.ty)
        return [f.name, f.ty === 'timestamp' && typeof v === 'number' ? new Date(v).toISOString() : v]
      })))
  }

  close(): void {
    this.db.close()
  }
}

function bind(sql: string, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [, name] of sql.matchAll(/@([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const value = params[name as string]
    out[name as string] = typeof value === 'boolean' ? (value ? 1 : 0) : value ?? null
  }
  return out
}

/** A SQLite value back in Eel's terms: 0/1 of a bool column become false/true (timestamps stay ms). */
export function fromSql(v: Scalar, ty: Ty): Scalar {
  if (ty === 'bool' && typeof v === 'number') return v !== 0
  return v
}
