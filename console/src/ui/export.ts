// Results out of the browser: CSV (RFC 4180: every field quoted when it holds a comma,
// quote or line break; null as an empty field; lists and records as JSON) and JSON (an
// array of objects, one per row), saved as a download without any server round trip.
import type { Value } from '../api/types.js'
import { h } from './dom.js'

function csvField(value: Value | undefined): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsv(columns: readonly string[], rows: readonly Value[][]): string {
  const lines = [columns.map((c) => csvField(c)), ...rows.map((r) => columns.map((_, i) => csvField(r[i])))]
  return `${lines.map((l) => l.join(',')).join('\r\n')}\r\n`
}

export function toJson(columns: readonly string[], rows: readonly Value[][]): string {
  return `${JSON.stringify(rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? null]))), null, 2)}\n`
}

/** Saves `text` as a file named `name` (the browser's download). */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = h('a', { href: url, download: name, hidden: true })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** "users-2024-05-01T14-03-22" : a file name that sorts and says what it holds. */
export function exportName(what: string): string {
  return `${what.replace(/[^A-Za-z0-9_-]+/g, '_')}-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}`
}
