// The bound on an answer's size (result_bytes_max, docs/api.md "Size of an answer"):
// every row a statement answers is counted as it is made, as the JSON text the HTTP
// route writes for it, so a statement whose answer would be too large fails with
// `result_too_large` before it holds more than the bound (and one row), and before
// anything of it is sent.
//
// Rows are first counted by an upper bound that reads no string (json-bytes.ts): while
// the bounds add up to no more than result_bytes_max the answer surely fits, and most
// answers end there. Past it, the rows so far are measured exactly, once, and every
// later row too, so an answer is refused only when its exact size is over the bound.
// A long list in a row is measured once however many rows hold it: a hash lookup gives
// every row that looks up one value the same list of matches.
import type { Value } from '../../lang/ast.js'
import { QueryError } from '../errors.js'
import { jsonBytes, jsonBytesBound } from './json-bytes.js'

/** Lists at least this long are remembered by identity (a short one costs less to measure than to look up). */
const remembered_list_length_min = 16

type Measure = (value: Value, room: number) => number

export class ResultBytes {
  readonly max: number
  /** The bounds' sum while counting by bounds, then the exact size: each row's JSON text and its comma. */
  #bytes = 0
  /** The rows counted by their bounds (null once counting is exact). */
  #bounded: Value[] | null = []
  /** The measure of each long list met, by the list (by bound, then exact). */
  #lists = new WeakMap<Value[], number>()

  constructor(max: number) {
    this.max = max
  }

  /** Counts one row of the answer (an array of column values, or a prepared statement's object). */
  add(row: Value): void {
    if (this.#bounded !== null) {
      this.#bytes += this.#bound(row, this.max - this.#bytes) + 1
      if (this.#bytes <= this.max) {
        this.#bounded.push(row)
        return
      }
      const bounded = this.#bounded
      this.#bounded = null
      this.#bytes = 0
      this.#lists = new WeakMap()
      for (const earlier of bounded) this.#exact(earlier)
    }
    this.#exact(row)
  }

  #exact(row: Value): void {
    this.#bytes += this.#measure(row, this.max - this.#bytes) + 1
    if (this.#bytes > this.max) {
      throw new QueryError('result_too_large', `the answer would be more than ${this.max} bytes of JSON (result_bytes_max); ask for fewer rows (take, a narrower where) or smaller ones (select only the fields needed), and page through the rest`)
    }
  }

  /** jsonBytesBound of a row, its scalars inline (this runs for every row of most answers). */
  #bound(row: Value, room: number): number {
    if (!Array.isArray(row)) return jsonBytesBound(row, room) // a prepared statement's row: no lookups there
    let bytes = row.length + 2
    for (let i = 0; i < row.length && bytes <= room; i += 1) {
      const value = row[i] as Value
      if (typeof value === 'string') bytes += 6 * value.length + 2
      else if (typeof value === 'number') bytes += 24
      else if (value === null || typeof value === 'boolean') bytes += 5
      else if (Array.isArray(value) && value.length >= remembered_list_length_min) bytes += this.#list(value, room - bytes, jsonBytesBound)
      else bytes += jsonBytesBound(value, room - bytes)
    }
    return bytes
  }

  /** jsonBytes of a row, its long lists looked up by identity first. */
  #measure(row: Value, room: number): number {
    if (!Array.isArray(row)) return jsonBytes(row, room) // a prepared statement's row: no lookups there
    let bytes = Math.max(row.length + 1, 2) // its brackets and commas
    for (let i = 0; i < row.length && bytes <= room; i += 1) {
      const value = row[i] as Value
      bytes += Array.isArray(value) && value.length >= remembered_list_length_min ? this.#list(value, room - bytes, jsonBytes) : jsonBytes(value, room - bytes)
    }
    return bytes
  }

  #list(list: Value[], room: number, measure: Measure): number {
    const known = this.#lists.get(list)
    if (known !== undefined) return known
    const bytes = measure(list, room)
    // A measure past its room stopped early: it is not the list's.
    if (bytes <= room) this.#lists.set(list, bytes)
    return bytes
  }
}
