// The differential test's own model of queries: a typed expression and stage tree
// that is printed as Eel text (eel-text.ts) and translated to SQLite SQL (sql.ts).
// Keeping one tree for both sides means the two texts can only differ in the
// translation rules, which are the thing under test.

/** `timestamp` values are ISO-8601 texts in the model, Dates in Eel, ms in SQLite. */
export type Ty = 'int' | 'float' | 'string' | 'bool' | 'timestamp' | 'duration'

/** A scalar as both stores hold it (booleans are 0/1 in SQLite, converted back). */
export type Scalar = null | boolean | number | string

export type Row = Record<string, Scalar>

/** A column of the rows flowing between two stages, with Eel's static type. */
export interface Col {
  name: string
  ty: Ty
  /**
   * A float summed in an order the two stores do not share (avg, float sum): equal
   * up to rounding only, so never sorted on or compared for order or equality.
   */
  inexact?: true
}

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>='
export type ArithOp = '+' | '-' | '*' | '/' | '%'
export type Fn = 'lower' | 'upper' | 'len' | 'abs' | 'coalesce' | 'round' | 'contains' | 'starts_with'
  | 'if' | 'like' | 'matches' | 'trim' | 'replace' | 'substr' | 'floor' | 'ceil'
  | 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'weekday' | 'date_trunc' | 'timestamp'

/**
 * `ty` is the type Eel's checker infers (src/query/check/check-expr.ts); a literal null
 * carries the type of the context it was generated for. `ty` decides literal
 * printing (2.0 vs 2), the translation of `%` and `+`, and result conversion.
 */
export type Expr =
  | { k: 'lit'; v: Scalar; ty: Ty }
  | { k: 'field'; name: string; ty: Ty }
  | { k: 'param'; name: string; v: Scalar; ty: Ty }
  | { k: 'neg'; e: Expr; ty: Ty }
  | { k: 'not'; e: Expr; ty: 'bool' }
  | { k: 'cmp'; op: CompareOp; l: Expr; r: Expr; ty: 'bool' }
  | { k: 'logic'; op: 'and' | 'or'; l: Expr; r: Expr; ty: 'bool' }
  | { k: 'arith'; op: ArithOp; l: Expr; r: Expr; ty: Ty }
  | { k: 'in'; e: Expr; items: Expr[]; ty: 'bool' }
  | { k: 'call'; fn: Fn; args: Expr[]; ty: Ty }
  /** Redundant parentheses in the Eel text (the SQL side parenthesises everything). */
  | { k: 'paren'; e: Expr; ty: Ty }
  /** A duration literal (`90s`): milliseconds in both stores. */
  | { k: 'dur'; ms: number; text: string; ty: 'duration' }
  /** `lk0.name`: a field of a single lookup's row (generate-more.ts). */
  | { k: 'lkfield'; lookup: string; field: string; ty: Ty }
  /** `len(lk0)`: how many rows a `many` lookup found. */
  | { k: 'lkcount'; lookup: string; ty: 'int' }

export type AggFn = 'count' | 'count_distinct' | 'sum' | 'min' | 'max' | 'avg'

export interface AggItem {
  name: string
  fn: AggFn
  arg: Expr | null
}

export interface SelectItem {
  name: string
  e: Expr
  /** Printed as a bare field (`select a`) rather than `a: a`. */
  bare: boolean
}

export type Stage =
  | { k: 'where'; p: Expr }
  | { k: 'get'; key: Expr }
  | { k: 'sort'; keys: Array<{ e: Expr; desc: boolean; explicitAsc: boolean }> }
  | { k: 'skip'; n: Expr }
  | { k: 'take'; n: Expr }
  | { k: 'select'; items: SelectItem[] }
  | { k: 'count' }
  | { k: 'aggregate'; items: AggItem[]; by: string[] }
  | { k: 'distinct'; fields: string[] }
  | { k: 'update'; set: Array<{ name: string; e: Expr }>; returning?: Returning }
  | { k: 'delete'; returning?: Returning }
  /** `lookup [inner] [many] name: others on left == field`. */
  | { k: 'lookup'; name: string; left: Expr; field: string; inner: boolean; many: boolean }

/** `returning *` or the fields named. */
export type Returning = '*' | string[]

export interface Pipeline {
  kind: 'pipeline'
  stages: Stage[]
}

export interface Insert {
  kind: 'insert' | 'upsert'
  rows: Row[]
  /** Passed as a `$param` list instead of literal records. */
  param: string | null
  /** Fields written as an explicit `null` rather than left out, per row. */
  explicitNulls: boolean
  returning?: Returning
}

export type Stmt = Pipeline | Insert

/** One generated case: one statement, or several run as `atomic { … }`. */
export interface Case {
  stmts: Stmt[]
  params: Record<string, Scalar | Row[]>
  /** Feature tags, for the per-category counts. */
  tags: Set<string>
  /** Division, remainder or int overflow that may fail: the SQL side predicts it. */
  risky: boolean
}

// ---- The collection under test ----

export const collection = 'items'
export const primary = 'id'

export const fields: readonly Col[] = [
  { name: 'id', ty: 'int' },
  { name: 'a', ty: 'int' },
  { name: 'b', ty: 'int' },
  { name: 'f', ty: 'float' },
  { name: 's', ty: 'string' },
  { name: 't', ty: 'string' },
  { name: 'flag', ty: 'bool' },
  { name: 'u', ty: 'int' },
  { name: 'ts', ty: 'timestamp' },
]

export const schemaSource = `
# The differential test's collection: nullable fields of every scalar type, a
# single-field index, composite indexes, indexes on a float and a timestamp, and a
# unique field.
collection items {
  id: int primary,
  a: int?,
  b: int?,
  f: float?,
  s: string?,
  t: string?,
  flag: bool?,
  u: int? unique,
  ts: timestamp?,
  index (a),
  index (s, b),
  index (f),
  index (flag, a),
  index (ts),
}

# Lookups read it by its primary key (id), an index (k) or a hash table (name, w).
collection others { id: int primary, k: int?, name: string?, w: float?, index (k) }
`

export const sqliteSchema = `CREATE TABLE items (
  id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, f REAL, s TEXT, t TEXT, flag INTEGER, u INTEGER UNIQUE, ts INTEGER
); CREATE TABLE others (id INTEGER PRIMARY KEY, k INTEGER, name TEXT, w REAL)`

/** The collection lookups read: loaded once per run, never written by the cases. */
export const others = 'others'

export const otherFields: readonly Col[] = [
  { name: 'id', ty: 'int' },
  { name: 'k', ty: 'int' },
  { name: 'name', ty: 'string' },
  { name: 'w', ty: 'float' },
]

export function isNumeric(ty: Ty): boolean {
  return ty === 'int' || ty === 'float'
}

/**
 * The instant an ISO-8601 text names, in ms since the epoch, read the way Eel
 * reads it (src/query/values/evaluate.ts): a time without a zone is UTC, a date alone is
 * midnight UTC.
 */
export function timestampMs(text: string): number {
  const zoned = /T[0-9:.]+(Z|[+-]\d{2}:\d{2})$/.test(text)
  const ms = new Date(text.includes('T') && !zoned ? `${text}Z` : text).getTime()
  if (Number.isNaN(ms)) throw new Error(`not a timestamp: ${text}`)
  return ms
}
