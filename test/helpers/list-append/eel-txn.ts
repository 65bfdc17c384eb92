// One planned transaction as an Eel query (docs/language.md), and its answer read back
// into the history's operations. A key is a row of `lists` whose string `v` holds the
// list, values separated by spaces; an append is `update {v: v + " <value>"}`, a
// read-modify-write of the row that first-committer-wins must serialize. Several
// operations run as one atomic block (one snapshot, one commit); a single one runs as a
// plain statement; some read-only transactions read all their keys in one `where id in`
// statement instead, so both paths of a read-only snapshot are covered.
import type { Value } from '../../../src/lang/ast.js'
import type { Op } from './history.js'
import { readOnly } from './workload.js'

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

export function eelTxn(ops: Op[], oneStatementRead: boolean): EelTxn {
  if (readOnly(ops) && oneStatementRead) {
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
  return {
    query: statements.length === 1 ? (statements[0] as string) : `atomic { ${statements.join('; ')} }`,
    params,
    complete(answer) {
      const results = statements.length === 1 ? [answer] : answer.results ?? []
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

/** The `insert` that creates keys first … last with empty lists. */
export function createKeys(first: number, last: number): { query: string; params: Record<string, Value> } {
  return { query: 'insert lists $rows', params: { rows: Array.from({ length: last - first + 1 }, (_, i) => ({ id: first + i, v: '' })) } }
}
