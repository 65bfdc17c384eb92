// The engine refuses a tree key over key_bytes_max at commit (crates/storage's
// KEY_BYTES_MAX), which would fail the whole commit as an internal error. Every key a
// write builds is checked here first, so the statement fails with `key_too_large`
// naming what is too large, and nothing of it (or of its atomic block) is written.
// How a key's encoded size is computed: docs/language.md "Key size".
import { key_bytes_max } from '../limits.js'
import type { CollectionIR, IndexIR } from '../schema/ir.js'
import { QueryError } from './errors.js'

export function checkPrimaryKeySize(key: Uint8Array, collection: CollectionIR): void {
  if (key.length > key_bytes_max) {
    throw tooLarge(`the primary key '${collection.primary}' of a row of '${collection.name}' encodes to ${key.length} bytes`)
  }
}

export function checkIndexKeySize(key: Uint8Array, collection: CollectionIR, index: IndexIR): void {
  if (key.length > key_bytes_max) {
    throw tooLarge(`an entry of index '${index.name}' of '${collection.name}' (its values and the primary key) encodes to ${key.length} bytes`)
  }
}

/** The last line of defence for keys built elsewhere (a tenant's meta or the catalog). */
export function checkTreeKeySize(key: Uint8Array, tree: string): void {
  if (key.length > key_bytes_max) throw tooLarge(`a key of tree '${tree}' encodes to ${key.length} bytes`)
}

export function keyTooLargeReason(what: string, bytes: number): string {
  return `${what} encodes to ${bytes} bytes, over the key limit of ${key_bytes_max} bytes`
}

function tooLarge(what: string): QueryError {
  return new QueryError('key_too_large', `${what}, over the key limit of ${key_bytes_max} bytes; nothing was written`)
}
