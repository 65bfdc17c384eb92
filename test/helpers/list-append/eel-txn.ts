// One planned transaction as an Eel query (docs/language.md), and its answer read back
// into the history's operations. A key is a row of `lists` whose string `v` holds the
// list, values separated by spaces; an append is `update {v: v + " <value>"}`, a
// read-modify-write of the row that first-committer-wins must serialize. Several
// operations run as one atomic block (one snapshot, one commit); a single one runs as a
// plain statement; some read-only transactions read all their keys in one `where id in`
// statement instead, so both paths of a read-only snapshot are covered. A planned scan
// reads the filler rows (ids from filler_first, never a key of the model) and keeps
// the last: more than one batch of the engine's range reads, so the block yields to
// the event loop there.
import type { Value } from '../../../src/lang/ast.js'
import type { Op } from './history.js'
import { readOnly, type PlannedTxn } from './workload.js'

export const filler_first = 1_000_000
/** Filler rows: one more than a batch of a range read (src/query/exec/execute.ts reads 1000 per batch). */
export const filler_rows = 1001

export const list_append_schema = 'collection lists { id: int primary, v: string }\n'

/** What a query answers (the embedding API's QueryResult, or the query route's JSON body). */
export interface Answer {
  columns: string[]
  rows: unknown[][]
  results?: Array<{ columns: string[]; rows: unknown[][] }>
}

export interface EelTxn {
  query: string
  params: Record<string, Value>
  /** The operations with their reads filled in from `answer`; throws on an answer of the wrong shape. */
  complete(answer: Answer): Op[]
}

export function eelTxn({ ops, scanAt }: PlannedTxn, oneStatementRead: boolean): EelTxn {
  if (readOnly(ops) && oneStatementRead && scanAt === undefined) {
    const keys = ops.map((op) => op.key)
    return {
      query: 'lists | where id in $ks | select id, v',
      params: { ks: keys },
      complete(answer) {
        const byKey = new Map(answer.rows.map((row) => [row[0], row[1]]))
        return ops.map((op) => ({ ...op, value: parseList(byKey.get(op.key), op.key) }) as Op)
      },
    }
  }
  const params: Record<string, Value> = {}
  const statements = ops.map((op, i) => {
    params[`k${i}`] = op.key
    if (op.f === 'r') return `lists | get $k${i} | select v`
    params[`e${i}`] = ` ${op.value}`
    return `lists | where id == $k${i} | update {v: v + $e${i}}`
  })
  if (scanAt !== undefined) {
    statements.splice(scanAt, 0, 'lists | where id >= $filler | select id | skip $skip')
    params.filler = filler_first
    params.skip = filler_rows - 1
  }
  return {
    query: statements.length === 1 ? (statements[0] as string) : `atomic { ${statements.join('; ')} }`,
    params,
    complete(answer) {
      const results = statements.length === 1 ? [answer] : answer.results ?? []
      if (scanAt !== undefined) {
        const [scanned] = results.splice(scanAt, 1)
        const last = filler_first + filler_rows - 1
        if (scanned?.rows.length !== 1 || scanned.rows[0]?.[0] !== last) throw new Error(`the filler scan ended at ${JSON.stringify(scanned?.rows)}, not [[${last}]]`)
      }
      return ops.map((op, i) => {
        const rows = results[i]?.rows
        if (op.f === 'r') return { ...op, value: parseList(rows?.[0]?.[0], op.key) }
        if (rows?.[0]?.[0] !== 1) throw new Error(`the append of ${op.value} to key ${op.key} changed ${JSON.stringify(rows)} rows, not 1`)
        return op
      })
    },
  }
}

function parseList(v: unknown, key: number): number[] {
  if (typeof v !== 'string') throw new Error(`key ${key} read as ${JSON.stringify(v)}, not a list`)
  const values = v.split(' ').filter((s) => s !== '').map(Number)
  if (!values.every(Number.isSafeInteger)) throw new Error(`key ${key} read as ${JSON.stringify(v)}, not a list of integers`)
  return values
}

/** The `insert` that creates keys 0 … count - 1 with empty lists, and the filler rows. */
export function createKeys(count: number): { query: string; params: Record<string, Value> } {
  const ids = [...Array.from({ length: count }, (_, i) => i), ...Array.from({ length: filler_rows }, (_, i) => filler_first + i)]
  return { query: 'insert lists $rows', params: { rows: ids.map((id) => ({ id, v: '' })) } }
}
