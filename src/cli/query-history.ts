// The query shell's history (docs/operations.md, "The query shell"): the lines typed, in
// ~/.tenantdb_history (TENANTDB_HISTORY names another file; empty keeps none), oldest
// first, at most query_history_lines_max, mode 0600: statements can hold data.
import { readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { query_history_lines_max } from '../limits.js'

export interface History {
  /** The file, or undefined when no history is kept. */
  file: string | undefined
  /** Newest first, as node:readline takes it. */
  lines: string[]
}

export function loadHistory(env: NodeJS.ProcessEnv): History {
  const file = env.TENANTDB_HISTORY === undefined ? join(homedir(), '.tenantdb_history') : env.TENANTDB_HISTORY === '' ? undefined : env.TENANTDB_HISTORY
  if (file === undefined) return { file, lines: [] }
  let text = ''
  try {
    text = readFileSync(file, 'utf8')
  } catch { /* none yet, or unreadable: start empty, as a shell does */ }
  return { file, lines: text.split('\n').filter((l) => l.trim() !== '').slice(-query_history_lines_max).reverse() }
}

/** Writes `lines` (newest first) to the history file; a failure to write loses only history. */
export function saveHistory(history: History, lines: readonly string[]): void {
  if (history.file === undefined) return
  try {
    writeFileSync(history.file, lines.slice(0, query_history_lines_max).reverse().map((l) => `${l}\n`).join(''), { mode: 0o600 })
  } catch { /* a read-only home: the shell still works */ }
}
