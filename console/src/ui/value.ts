// One stored value in a table cell: numbers right-aligned (tables align them by
// class), null dimmed, lists and records as compact JSON.
import type { Value } from '../api/types.js'
import { h } from './dom.js'

export function isNumeric(value: Value): boolean {
  return typeof value === 'number'
}

export function valueText(value: Value): string {
  if (value === null) return 'null'
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value)
}

export function valueCell(value: Value): HTMLTableCellElement {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'json' : typeof value === 'object' ? 'json' : typeof value
  return h('td', { class: `v-${kind}${isNumeric(value) ? ' num' : ''}`, title: typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2) : null }, valueText(value))
}
