// The bound on the rows one statement holds while it runs (statement_memory_bytes_max,
// docs/language.md "Limits of a statement"): a sort's kept rows, the groups of an
// aggregate, the values distinct has seen, a hash lookup's table, the rows a lookup
// found for the batch in hand. Each holder charges what it takes and gives back what
// it lets go (a sort trimmed to its take, a batch passed on), so the bound is on what
// is held at once. Sizes are estimates: a row read from storage weighs its encoded
// bytes, a row a stage holds its heap estimate (heap-bytes.ts), and each entry held
// its overhead besides.
import type { Value } from '../../lang/ast.js'
import { QueryError } from '../errors.js'
import { heapBytes } from './heap-bytes.js'

/**
 * What an entry held costs beyond its data, in bytes: its object, its place in an
 * array or map, the keys a sort evaluates. Measured on Node 20: a kept row of two ints
 * 160 bytes of heap, a group of one aggregate 280, a distinct value 60 beyond its text.
 */
export const entry_overhead_bytes = 128

export class StatementMemory {
  /** Bytes held now. */
  held = 0
  readonly max: number
  /** Whether `max` is the tenant's statement_memory_bytes (`statement_limit`) rather than the server's bound. */
  readonly #tenants: boolean

  constructor(max: number, tenants = false) {
    this.max = max
    this.#tenants = tenants
  }

  /**
   * Charges `bytes` to `holder` (a sort, an aggregate, …: named in the refusal, with
   * `advice` on how to do without, or the general one).
   */
  hold(bytes: number, holder: string, advice?: string): void {
    this.held += bytes
    if (this.held > this.max) throw this.#refusal(holder, advice)
  }

  /** Charges a row a stage holds (its heap estimate and an entry's overhead) to `holder`; returns the bytes to release. */
  holdRow(row: Value, holder: string): number {
    const bytes = heapBytes(row, this.max - this.held) + entry_overhead_bytes
    this.hold(bytes, holder)
    return bytes
  }

  release(bytes: number): void {
    this.held -= bytes
  }

  #refusal(holder: string, advice = 'narrow the rows first (a where on a key or index), add a take after a sort, or group by fewer values'): QueryError {
    if (this.#tenants) return new QueryError('statement_limit', `the statement would hold more than ${this.max} bytes of rows in memory, its limit statement_memory_bytes, in its ${holder}; ${advice}`, { limit: 'statement_memory_bytes' })
    return new QueryError('statement_memory_exceeded', `the statement would hold more than ${this.max} bytes of rows in memory (statement_memory_bytes_max) in its ${holder}; ${advice}`)
  }
}
