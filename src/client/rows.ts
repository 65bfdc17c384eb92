// A query answer's rows as objects (`{column: value}`), as a prepared statement's `get`
// and `all` give them.
import { refused } from './refusal.js'
import type { QueryResult, Row } from './types.js'

export function rowObjects(result: QueryResult): Row[] {
  return result.rows.map((row) => Object.fromEntries(result.columns.map((column, i) => [column, row[i] ?? null])))
}

/** Every row of the answer, or `not_allowed_here` when it was cut at the rows one answer holds: never a silent cut. */
export function allRows(result: QueryResult): Row[] {
  if (result.truncated === true) {
    throw refused('not_allowed_here', `more than the ${result.rows.length} rows one answer holds matched; page through them (a where on the key from the last row seen, or skip and take)`)
  }
  return rowObjects(result)
}
