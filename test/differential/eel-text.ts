// Prints the model (model.ts) as Eel text. Parentheses follow Eel's precedence
// (src/lang/eel.grammar: neg > * / % > + - > comparisons > not > and > or), so the
// parser's precedence is exercised too; the generator adds redundant ones on purpose.
import { collection, fields, others, type Returning, type Case, type Expr, type Insert, type Row, type Scalar, type Stage, type Stmt, type Ty } from './model.js'

export interface PrintOptions {
  /** Write non-ASCII characters of strings as \u{…} escapes instead of raw. */
  escapeUnicode: boolean
}

const plain: PrintOptions = { escapeUnicode: false }

export function caseText(c: Case, options: PrintOptions = plain): string {
  if (c.stmts.length === 1) return stmtText(c.stmts[0] as Stmt, options)
  return `atomic { ${c.stmts.map((s) => stmtText(s, options)).join('; ')} }`
}

export function stmtText(stmt: Stmt, options: PrintOptions = plain): string {
  if (stmt.kind === 'pipeline') return [collection, ...stmt.stages.map((s) => stageText(s, options))].join(' | ')
  return `${stmt.kind} ${collection} ${rowsText(stmt, options)}${returningText(stmt.returning)}`
}

function rowsText(stmt: Insert, options: PrintOptions): string {
  if (stmt.param !== null) return `$${stmt.param}`
  const records = stmt.rows.map((row) => recordText(row, stmt.explicitNulls, options))
  return records.length === 1 ? (records[0] as string) : `[${records.join(', ')}]`
}

export function recordText(row: Row, explicitNulls: boolean, options: PrintOptions = plain): string {
  const parts: string[] = []
  for (const field of fields) {
    const value = row[field.name] ?? null
    if (value === null && !explicitNulls) continue
    parts.push(`${field.name}: ${literalText(value, field.ty, options)}`)
  }
  return `{${parts.join(', ')}}`
}

export function stageText(stage: Stage, options: PrintOptions = plain): string {
  const e = (x: Expr) => exprText(x, options)
  switch (stage.k) {
    case 'where': return `where ${e(stage.p)}`
    case 'get': return `get ${e(stage.key)}`
    case 'sort': return `sort ${stage.keys.map((k) => `${e(k.e)}${k.desc ? ' desc' : k.explicitAsc ? ' asc' : ''}`).join(', ')}`
    case 'skip': return `skip ${e(stage.n)}`
    case 'take': return `take ${e(stage.n)}`
    case 'select': return `select ${stage.items.map((i) => (i.bare ? e(i.e) : `${i.name}: ${e(i.e)}`)).join(', ')}`
    case 'count': return 'count'
    case 'aggregate': {
      const items = stage.items.map((i) => `${i.name}: ${i.fn}(${i.arg === null ? '' : e(i.arg)})`).join(', ')
      return `aggregate ${items}${stage.by.length > 0 ? ` by ${stage.by.join(', ')}` : ''}`
    }
    case 'distinct': return `distinct ${stage.fields.join(', ')}`
    case 'update': return `update {${stage.set.map((s) => `${s.name}: ${e(s.e)}`).join(', ')}}${returningText(stage.returning)}`
    case 'delete': return `delete${returningText(stage.returning)}`
    case 'lookup': return `lookup ${stage.inner ? 'inner ' : ''}${stage.many ? 'many ' : ''}${stage.name}: ${others} on ${sub(stage.left)} == ${stage.field}`
  }
}

/** A lookup's left side: parenthesised unless it is a plain field. */
function sub(e: Expr): string {
  return e.k === 'field' ? exprText(e) : `(${exprText(e)})`
}

function returningText(returning: Returning | undefined): string {
  if (returning === undefined) return ''
  return returning === '*' ? ' returning *' : ` returning ${returning.join(', ')}`
}

/** Eel's binding strength of an expression's top operator (higher binds tighter). */
function strength(e: Expr): number {
  switch (e.k) {
    case 'logic': return e.op === 'or' ? 1 : 2
    case 'not': return 3
    case 'cmp': case 'in': return 4
    case 'arith': return e.op === '+' || e.op === '-' ? 5 : 6
    case 'neg': return 7
    // `-3` is a literal, but it reads like a negation.
    case 'lit': return typeof e.v === 'number' && e.v < 0 ? 7 : 9
    default: return 9
  }
}

export function exprText(e: Expr, options: PrintOptions = plain): string {
  const sub = (x: Expr, parens: boolean) => (parens ? `(${exprText(x, options)})` : exprText(x, options))
  switch (e.k) {
    case 'lit': return literalText(e.v, e.ty, options)
    case 'field': return e.name
    case 'param': return `$${e.name}`
    case 'paren': return `(${exprText(e.e, options)})`
    case 'neg': return `-${sub(e.e, strength(e.e) <= 7)}`
    case 'not': return `not ${sub(e.e, strength(e.e) < 3)}`
    // Comparisons do not chain: a comparison operand is always parenthesised.
    case 'cmp': return `${sub(e.l, strength(e.l) <= 4)} ${e.op} ${sub(e.r, strength(e.r) <= 4)}`
    case 'in': return `${sub(e.e, strength(e.e) <= 4)} in [${e.items.map((i) => exprText(i, options)).join(', ')}]`
    case 'arith': case 'logic': {
      const p = strength(e)
      return `${sub(e.l, strength(e.l) < p)} ${e.op} ${sub(e.r, strength(e.r) <= p)}`
    }
    case 'call': return `${e.fn}(${e.args.map((a) => exprText(a, options)).join(', ')})`
    case 'dur': return e.text
    case 'lkfield': return `${e.lookup}.${e.field}`
    case 'lkcount': return `len(${e.lookup})`
  }
}

export function literalText(v: Scalar, ty: Ty, options: PrintOptions = plain): string {
  if (v === null) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') return stringText(v, options)
  // A whole float is written with a fraction; one in exponent form (1e+308) is a float already.
  if (ty === 'float' && Number.isInteger(v) && !String(v).includes('e')) return `${v}.0`
  return String(v)
}

export function stringText(s: string, options: PrintOptions = plain): string {
  let out = '"'
  for (const ch of s) {
    const code = ch.codePointAt(0) as number
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (code > 0x7e && options.escapeUnicode) out += `\\u{${code.toString(16)}}`
    else out += ch
  }
  return `${out}"`
}
