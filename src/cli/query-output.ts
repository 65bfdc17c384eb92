// A statement's result as `tenantdb query` prints it (docs/operations.md, "Querying
// from the command line"): an aligned table for people, JSON (the result object as the
// HTTP API answers it, one line) or CSV (RFC 4180: a header, then a line per row) for
// programs. A tenant operation's result is its message as a table, its object as JSON,
// and one `ok,message` row as CSV.
import type { Value } from '../lang/ast.js'
import type { OutputFormat } from './query-options.js'
import type { RowsResult, StatementResult } from './query-target.js'

export function formatResult(result: StatementResult, format: OutputFormat): string {
  if (format === 'json') return `${JSON.stringify(result)}\n`
  const { columns, rows } = 'columns' in result ? result : { columns: ['ok', 'message'], rows: [[result.ok, result.message]] }
  if (format === 'csv') return [columns, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n'
  if (!('columns' in result)) return `${result.message}\n`
  return table(columns, rows) + footer(result)
}

/** Columns padded to their widest cell, a rule under the header. */
export function table(columns: string[], rows: Value[][]): string {
  const cells = rows.map((row) => row.map(cellText))
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)))
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].map((l) => `${l}\n`).join('')
}

function footer(result: RowsResult): string {
  const n = result.rows.length
  const notes = [`${n} row${n === 1 ? '' : 's'}`]
  if (result.truncated === true) notes.push('truncated: more matched')
  if (result.lsn !== undefined) notes.push(`lsn ${result.lsn}`)
  return `(${notes.join(', ')})\n`
}

/** A cell on one line: text as it is (line breaks shown as \n), null as `null`, the rest as JSON. */
function cellText(value: Value | undefined): string {
  if (typeof value === 'string') return value.replace(/\r?\n/g, '\\n')
  return value === undefined ? '' : JSON.stringify(value)
}

/** A CSV field: null is empty, lists and records are their JSON, quoted when they hold , " or a line break. */
function csvField(value: Value | undefined): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}
