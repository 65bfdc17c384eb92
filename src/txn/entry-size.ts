// The engine refuses a tree key over key_bytes_max and a value over row_bytes_max at
// commit (crates/storage's KEY_BYTES_MAX and VALUE_BYTES_MAX), which would fail the
// whole commit as an internal error. Every key and row a write builds is checked here
// first, so the statement fails with `key_too_large` or `row_too_large` naming what is
// too large, and nothing of it (or of its atomic block) is written. How a key's
// encoded size is computed: docs/language.md "Key size".
import { key_bytes_max, row_bytes_max } from '../limits.js'
import type { CollectionIR, IndexIR } from '../schema/ir.js'
import { QueryError } from '../query-error.js'

export function checkPrimaryKeySize(key: Uint8Array, collection: CollectionIR): void {
  if (key.length > key_bytes_max) {
    throw keyTooLarge(`the primary key '${collection.primary}' of a row of '${collection.name}' encodes to ${key.length} bytes`)
  }
}

export function checkIndexKeySize(key: Uint8Array, collection: CollectionIR, index: IndexIR): void {
  if (key.length > key_bytes_max) {
    throw keyTooLarge(`an entry of index '${index.name}' of '${collection.name}' (its values and the primary key) encodes to ${key.length} bytes`)
  }
}

export function checkRowSize(row: Uint8Array, collection: CollectionIR): void {
  if (row.length > row_bytes_max) {
    throw new QueryError('row_too_large', `a row of '${collection.name}' encodes to ${row.length} bytes, over the row limit of ${row_bytes_max} bytes; nothing was written`)
  }
}

/** The last line of defence for entries built elsewhere (a tenant's meta or the catalog). */
export function checkTreeEntrySize(tree: string, key: Uint8Array, value: Uint8Array): void {
  if (key.length > key_bytes_max) throw keyTooLarge(`a key of tree '${tree}' encodes to ${key.length} bytes`)
  if (value.length > row_bytes_max) {
    throw new QueryError('row_too_large', `a value of tree '${tree}' is ${value.length} bytes, over the limit of ${row_bytes_max} bytes; nothing was written`)
  }
}

export function keyTooLargeReason(what: string, bytes: number): string {
  return `${what} encodes to ${bytes} bytes, over the key limit of ${key_bytes_max} bytes`
}

function keyTooLarge(what: string): QueryError {
  return new QueryError('key_too_large', `${what}, over the key limit of ${key_bytes_max} bytes; nothing was written`)
}
