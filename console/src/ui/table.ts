// Tables the same everywhere: a header row, numbers right-aligned (column `align`, or
// per cell for result sets whose types are only known per value), an empty state.
import type { Value } from '../api/types.js'
import { h } from './dom.js'
import { valueCell } from './value.js'

export interface Column<T> {
  label: string
  /** 'num' right-aligns the column (header and cells) with tabular figures. */
  align?: 'num'
  cell: (row: T) => Node | string | number | Node[]
}

export function table<T>(columns: Array<Column<T>>, rows: readonly T[], options: { empty?: string; rowAttributes?: (row: T) => Record<string, unknown> } = {}): HTMLElement {
  if (rows.length === 0) return h('p.empty', null, options.empty ?? 'Nothing here yet.')
  return h('div.table-wrap', null, h('table.data', null,
    h('thead', null, h('tr', null, columns.map((c) => h('th', { class: c.align ?? null }, c.label)))),
    h('tbody', null, rows.map((row) => h('tr', options.rowAttributes?.(row) ?? null,
      columns.map((c) => h('td', { class: c.align ?? null }, c.cell(row)))))),
  ))
}

/** A query result: column names over rows of stored values. */
export function valueTable(columns: readonly string[], rows: readonly Value[][], options: { empty?: string; rowClass?: string } = {}): HTMLElement {
  if (rows.length === 0) return h('p.empty', null, options.empty ?? 'No rows.')
  // A column is right-aligned in its header too when every non-null value is a number.
  const numeric = columns.map((_, i) => rows.every((r) => r[i] === null || r[i] === undefined || typeof r[i] === 'number') && rows.some((r) => typeof r[i] === 'number'))
  return h('div.table-wrap', null, h('table.data.results', null,
    h('thead', null, h('tr', null, columns.map((c, i) => h('th', { class: numeric[i] === true ? 'num' : null }, c)))),
    h('tbody', null, rows.map((row) => h('tr', { class: options.rowClass ?? null }, columns.map((_, i) => valueCell(row[i] ?? null))))),
  ))
}
