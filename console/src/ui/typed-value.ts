// A stored value in a cell of the data browser, typed by its field: timestamps in local
// time (the exact value in the tooltip), JSON and lists as compact JSON (pretty-printed
// in the tooltip), booleans and numbers in their colours, null dimmed.
import type { FieldType, Value } from '../api/types.js'
import { h } from './dom.js'
import { timestamp } from './format.js'

const json_shown_chars_max = 120

/** The type a field's values have, in words: int, [string], json, … */
export function typeText(type: FieldType): string {
  if (type.kind === 'list' && 'item' in type && typeof type.item === 'object' && type.item !== null) return `[${typeText(type.item as FieldType)}]`
  return type.kind
}

export function typedCell(value: Value | undefined, type: FieldType | undefined): HTMLTableCellElement {
  const v = value ?? null
  if (v === null) return h('td.v-null', null, 'null')
  if (type?.kind === 'timestamp' && typeof v === 'string') {
    return h('td.v-timestamp.nowrap', { title: v, dataset: { value: v } }, timestamp(v))
  }
  if (typeof v === 'number') return h('td.v-number.num', null, String(v))
  if (typeof v === 'boolean') return h('td.v-boolean', null, String(v))
  if (typeof v === 'string') return h('td.v-string', { title: v.length > json_shown_chars_max ? v : null }, v.length > json_shown_chars_max ? `${v.slice(0, json_shown_chars_max)}…` : v)
  const text = JSON.stringify(v)
  const kind = Array.isArray(v) ? 'v-list' : 'v-json'
  return h(`td.${kind}`, { title: JSON.stringify(v, null, 2) }, text.length > json_shown_chars_max ? `${text.slice(0, json_shown_chars_max)}…` : text)
}
