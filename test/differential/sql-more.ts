// SQL for the later additions to Eel (sql.ts has the rest): the conditional, patterns
// (like as GLOB, matches through a registered JavaScript RegExp), strings, rounding,
// time (timestamps and durations are ms in SQLite; parts through strftime on whole
// seconds), count_distinct, and lookups as correlated subqueries.
import { otherFields, others, timestampMs, type Col, type Expr, type Stage } from './model.js'

const q = (name: string) => `"${name.replace(/"/g, '""')}"`
const str = (s: string) => `'${s.replace(/'/g, "''")}'`

/** Whole seconds since 1970 of a ms value, rounding down (also before 1970). */
const seconds = (ms: string) => `((${ms} - (((${ms}) % 1000) + 1000) % 1000) / 1000)`
const floorTo = (ms: string, unit: number) => `(${ms} - (((${ms}) % ${unit}) + ${unit}) % ${unit})`

/** JavaScript's String.prototype.trim() removes these (ECMAScript WhiteSpace and LineTerminator). */
const js_white_space = [9, 10, 11, 12, 13, 32, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288, 65279]

/** A like pattern as a GLOB (case-sensitive, as Eel's like): % → *, _ → ?, the rest literal. */
export function likeToGlob(pattern: string): string {
  let out = ''
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i += 1) {
    let ch = chars[i] as string
    if (ch === '%') { out += '*'; continue }
    if (ch === '_') { out += '?'; continue }
    if (ch === '\\') ch = chars[++i] ?? ''
    out += ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch
  }
  return out
}

/** A call of the later functions, its arguments already translated (`e` for their models). */
export function callSql(e: Expr & { k: 'call' }, args: string[], truth: (x: Expr) => string): string {
  const [a, b, c] = args
  switch (e.fn) {
    case 'if': return `(CASE WHEN ${truth(e.args[0] as Expr)} THEN ${b} ELSE ${c} END)`
    case 'like': {
      const pattern = e.args[1]
      if (pattern?.k !== 'lit' || typeof pattern.v !== 'string') throw new Error('like patterns are literals in the differential test')
      return `COALESCE(${a} GLOB ${str(likeToGlob(pattern.v))}, 0)`
    }
    case 'matches': return `COALESCE(eel_regexp(${b}, ${a}), 0)`
    case 'trim': return `trim(${a}, ${js_white_space.map((n) => `char(${n})`).join(' || ')})`
    case 'replace': return `replace(${a}, ${b}, ${c})`
    case 'substr': return c === undefined ? `substr(${a}, ${b} + 1)` : `substr(${a}, ${b} + 1, ${c})`
    case 'floor': return `CAST(floor(${a}) AS INTEGER)`
    case 'ceil': return `CAST(ceil(${a}) AS INTEGER)`
    case 'year': return `CAST(strftime('%Y', ${seconds(a as string)}, 'unixepoch') AS INTEGER)`
    case 'month': return `CAST(strftime('%m', ${seconds(a as string)}, 'unixepoch') AS INTEGER)`
    case 'day': return `CAST(strftime('%d', ${seconds(a as string)}, 'unixepoch') AS INTEGER)`
    case 'hour': return `CAST(strftime('%H', ${seconds(a as string)}, 'unixepoch') AS INTEGER)`
    case 'minute': return `CAST(strftime('%M', ${seconds(a as string)}, 'unixepoch') AS INTEGER)`
    case 'second': return `CAST(strftime('%S', ${seconds(a as string)}, 'unixepoch') AS INTEGER)`
    case 'weekday': return `(((CAST(strftime('%w', ${seconds(a as string)}, 'unixepoch') AS INTEGER) + 6) % 7) + 1)`
    case 'timestamp': {
      const text = e.args[0]
      if (text?.k !== 'lit' || typeof text.v !== 'string') throw new Error('timestamp() takes literals in the differential test')
      return String(timestampMs(text.v))
    }
    case 'date_trunc': {
      const unit = e.args[1]
      if (unit?.k !== 'lit' || typeof unit.v !== 'string') throw new Error('date_trunc units are literals in the differential test')
      const ms = a as string
      switch (unit.v) {
        case 'second': return floorTo(ms, 1000)
        case 'minute': return floorTo(ms, 60_000)
        case 'hour': return floorTo(ms, 3_600_000)
        case 'day': return floorTo(ms, 86_400_000)
        case 'week': {
          const day = `(${floorTo(ms, 86_400_000)} / 86400000)`
          return `((${day} - (((${day} + 3) % 7) + 7) % 7) * 86400000)`
        }
        default: return `(CAST(strftime('%s', ${seconds(ms)}, 'unixepoch', 'start of ${unit.v}') AS INTEGER) * 1000)`
      }
    }
    default: throw new Error(`no SQL for ${e.fn}`)
  }
}

/** Durations scaled by a number are rounded to whole ms, halves away from zero (SQLite's round). */
export function scaledDuration(sql: string): string {
  return `CAST(round(${sql}) AS INTEGER)`
}

/**
 * A lookup stage over relation `sql` (columns `cols` plus `__o`): the left side is
 * computed once as `__l`, the match is the smallest `others` id whose field equals it
 * (`=` matches no NULL, as Eel's lookups), and its fields become `name__field` columns
 * (a `many` lookup's count `name__n`).
 */
export function lookupSql(sql: string, cols: readonly Col[], stage: Stage & { k: 'lookup' }, left: string, alias: string): { sql: string; cols: Col[] } {
  const keep = [...cols.map((c) => q(c.name)), '__o'].join(', ')
  const match = `FROM ${others} o WHERE o.${q(stage.field)} = ${alias}.__l`
  const added = stage.many
    ? `(SELECT COUNT(*) ${match}) AS ${q(`${stage.name}__n`)}`
    : `(SELECT MIN(o.id) ${match}) AS __m`
  let out = `SELECT ${alias}.*, ${added} FROM (SELECT ${keep}, ${left} AS __l FROM (${sql})) AS ${alias}`
  if (stage.many) {
    if (stage.inner) out = `SELECT * FROM (${out}) WHERE ${q(`${stage.name}__n`)} > 0`
    return { sql: `SELECT ${keep}, ${q(`${stage.name}__n`)} FROM (${out})`, cols: [...cols, { name: `${stage.name}__n`, ty: 'int' }] }
  }
  const fieldsOf = otherFields.map((f) => `m.${q(f.name)} AS ${q(`${stage.name}__${f.name}`)}`)
  out = `SELECT ${[...cols.map((c) => `x.${q(c.name)}`), 'x.__o', ...fieldsOf].join(', ')} FROM (${out}) AS x ${stage.inner ? 'JOIN' : 'LEFT JOIN'} ${others} m ON m.id = x.__m`
  return { sql: out, cols: [...cols, ...otherFields.map((f) => ({ name: `${stage.name}__${f.name}`, ty: f.ty }))] }
}
