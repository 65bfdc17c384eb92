// The queries this browser ran and the ones saved by name, in localStorage (they
// outlive the tab, unlike the token; params are never kept: they may hold secrets).
// History is bounded (history_entries_max, the newest first, a repeat moves to the
// front); saved queries are bounded too (saved_entries_max), one per name.
const history_key = 'tenantdb.console.history'
const saved_key = 'tenantdb.console.saved'
export const history_entries_max = 50
export const saved_entries_max = 100

export interface HistoryEntry {
  text: string
  tenant: string
  /** ISO-8601 time it was run. */
  at: string
}

export interface SavedQuery {
  name: string
  text: string
}

function read<T>(key: string): T[] {
  try {
    const value = JSON.parse(localStorage.getItem(key) ?? '[]') as unknown
    return Array.isArray(value) ? (value as T[]) : []
  } catch {
    return []
  }
}

function write(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value))
  } catch {
    // A full or disabled storage loses the history, never the query.
  }
}

export function queryHistory(): HistoryEntry[] {
  return read<HistoryEntry>(history_key).filter((e) => typeof e?.text === 'string')
}

export function remember(text: string, tenant: string): void {
  if (text.trim() === '') return
  const rest = queryHistory().filter((e) => e.text !== text)
  write(history_key, [{ text, tenant, at: new Date().toISOString() }, ...rest].slice(0, history_entries_max))
}

export function clearHistory(): void {
  write(history_key, [])
}

export function savedQueries(): SavedQuery[] {
  return read<SavedQuery>(saved_key).filter((e) => typeof e?.name === 'string' && typeof e.text === 'string')
}

/** Saves (or replaces) `name`; false when the list is full and `name` is new. */
export function saveQuery(name: string, text: string): boolean {
  const list = savedQueries()
  const at = list.findIndex((q) => q.name === name)
  if (at === -1 && list.length >= saved_entries_max) return false
  if (at === -1) list.push({ name, text })
  else list[at] = { name, text }
  write(saved_key, list.sort((a, b) => a.name.localeCompare(b.name)))
  return true
}

export function deleteSaved(name: string): void {
  write(saved_key, savedQueries().filter((q) => q.name !== name))
}
