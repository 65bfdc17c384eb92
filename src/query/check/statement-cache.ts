// Parsed statements by query text. Parsing (lezer, then the AST) was the largest
// single cost of a point query, and applications send the same few texts with
// different parameters. The parse depends on the text alone, so no schema change,
// tenant operation or commit can make an entry stale; beside it each entry keeps the
// statement's checked forms per parameter shape (check-cache.ts: the schema is fixed
// for the life of an open database). Planning depends on the values and runs every time.
//
// Entries are shared by every query of the text, so they are frozen: a stage that
// tried to change a cached tree would throw instead of corrupting later queries.
// Bounded in entries and in text length (least recently used goes first).
import type { Statement } from '../../lang/ast.js'
import { parse } from '../../lang/parse.js'
import { statement_cache_entries_max, statement_cache_text_chars_max } from '../../limits.js'
import { CheckCache } from './check-cache.js'

interface Entry {
  statement: Statement
  checks: CheckCache
}

export class StatementCache {
  readonly #entries = new Map<string, Entry>()
  readonly #capacity: number

  constructor(capacity = statement_cache_entries_max) {
    this.#capacity = capacity
  }

  /** The first statement of `text` (as `parse(text, 'query')`); throws its EelError. */
  statement(text: string): Statement {
    return this.entry(text).statement
  }

  /** The statement of `text` and its checked forms. */
  entry(text: string): Entry {
    const cached = this.#entries.get(text)
    if (cached !== undefined) {
      // Re-insert: a Map iterates in insertion order, so the first key is the least recent.
      this.#entries.delete(text)
      this.#entries.set(text, cached)
      return cached
    }
    const entry = { statement: parse(text, 'query').statements[0] as Statement, checks: new CheckCache() }
    if (text.length <= statement_cache_text_chars_max && this.#capacity > 0) {
      if (this.#entries.size >= this.#capacity) this.#entries.delete(this.#entries.keys().next().value as string)
      deepFreeze(entry.statement)
      this.#entries.set(text, entry)
    }
    return entry
  }

  get size(): number {
    return this.#entries.size
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}
