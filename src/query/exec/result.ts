import type { Value } from '../../lang/ast.js'
import type { PlanHint } from '../plan/index.js'

/** A query's response (docs/api.md). */
export interface QueryResult {
  columns: string[]
  rows: Value[][]
  plan?: PlanHint
  /** Commit LSN of a write. */
  lsn?: number
  /** More rows matched than one response may hold. */
  truncated?: boolean
  /** One entry per statement of an atomic block. */
  results?: Array<Omit<QueryResult, 'results' | 'stats' | 'lsn'>>
  stats: { elapsed_ms: number; rows_examined: number }
}
