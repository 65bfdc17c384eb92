// What a node keeps of its cluster in its database directory: `replication.json`
// (docs/format.md, "Replication state"). The database id ties the directory to one
// cluster's database, so a node never applies another database's frames; the term
// history says which term wrote each local frame, so a node that comes back can tell
// whether its WAL is a prefix of the cluster's stream (docs/replication.md,
// "Rejoining"). Replaced whole: written to a temporary file, synced, renamed, and the
// directory synced.
//
// | field       | meaning                                                                  |
// |-------------|--------------------------------------------------------------------------|
// | `format`    | 1                                                                        |
// | `cluster`   | the cluster name                                                         |
// | `database`  | the database id (the cluster's key-value bucket holds the same)          |
// | `base_lsn`  | frames up to it came from the cluster in a backup: never compared again  |
// | `terms`     | `[{term, first_lsn}]`, ascending: frames from `first_lsn` on were written by `term` |
import { open, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { CodedError } from '../coded-error.js'

export const cluster_state_file = 'replication.json'
export const cluster_state_format = 1

/** The local history is bounded: only the newest terms are ever compared. */
const terms_kept_max = 1000

export interface TermStart {
  term: number
  first_lsn: number
}

export interface ClusterState {
  format: number
  cluster: string
  database: string
  base_lsn: number
  terms: TermStart[]
}

/** The directory's replication state is not one this version wrote: an operator decides. */
export class ClusterStateError extends CodedError<'cluster_state_invalid'> {
  constructor(message: string) {
    super('cluster_state_invalid', message)
  }
}

/** The directory's state, or null when it has none (not yet part of a cluster). */
export async function readClusterState(dir: string): Promise<ClusterState | null> {
  const path = join(dir, cluster_state_file)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  let state: Partial<ClusterState>
  try {
    state = JSON.parse(text) as Partial<ClusterState>
  } catch {
    throw new ClusterStateError(`${path} is not JSON: move it away only if this directory belongs to no cluster`)
  }
  const whole = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0
  if (state.format !== cluster_state_format || typeof state.cluster !== 'string' || typeof state.database !== 'string' || !whole(state.base_lsn) || !Array.isArray(state.terms) ||
    !state.terms.every((t, i, all) => whole(t?.term) && whole(t?.first_lsn) && (i === 0 || (t.term > (all[i - 1] as TermStart).term && t.first_lsn >= (all[i - 1] as TermStart).first_lsn)))) {
    throw new ClusterStateError(`${path} is not a replication state of format ${cluster_state_format}`)
  }
  return state as ClusterState
}

export async function writeClusterState(dir: string, state: ClusterState): Promise<void> {
  const path = join(dir, cluster_state_file)
  const temporary = `${path}.tmp`
  const terms = state.terms.slice(-terms_kept_max)
  const file = await open(temporary, 'w', 0o600)
  try {
    await file.writeFile(`${JSON.stringify({ ...state, terms })}\n`)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temporary, path)
  const directory = await open(dir, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** The term that wrote local frame `lsn`, or null when the history does not say (up to `base_lsn`, or before every entry). */
export function termOf(state: ClusterState, lsn: number): number | null {
  if (lsn <= state.base_lsn) return null
  let found: number | null = null
  for (const { term, first_lsn } of state.terms) {
    if (first_lsn > lsn) break
    found = term
  }
  return found
}

/** The state with `term` starting at `first_lsn` (a no-op when it is already the newest entry). */
export function withTerm(state: ClusterState, term: number, first_lsn: number): ClusterState {
  const last = state.terms.at(-1)
  if (last !== undefined && last.term === term) return state
  if (last !== undefined && last.term > term) throw new Error(`term ${term} after term ${last.term}: terms only grow`)
  // A term that wrote no frame is followed by one starting at the same LSN: it stays, harmless.
  return { ...state, terms: [...state.terms, { term, first_lsn }] }
}
