// An estimate of the heap a value takes, cheaply (no string is read): what a stage that
// holds rows is charged for each (statement-memory.ts, docs/language.md "Limits of a
// statement"). The figures are V8's on 64-bit Node with pointer compression off: a
// string's header and one byte a character (text is mostly one-byte), a double or a
// pointer eight bytes, an array or object's header and a slot per item or field. The
// walk stops once it passes `room`.
import type { Value } from '../../lang/ast.js'

const header_bytes = 16
const slot_bytes = 8

/** About the bytes `value` holds on the heap; once above `room`, some number above `room`. */
export function heapBytes(value: Value, room = Infinity): number {
  switch (typeof value) {
    case 'string': return header_bytes + value.length
    case 'number': case 'boolean': return slot_bytes
    default: break
  }
  if (value === null) return slot_bytes
  if (value instanceof Date) return 2 * header_bytes
  if (Array.isArray(value)) {
    let bytes = header_bytes + slot_bytes * value.length
    for (let i = 0; i < value.length && bytes <= room; i += 1) bytes += heapBytes(value[i] as Value, room - bytes)
    return bytes
  }
  let bytes = header_bytes
  for (const key in value) {
    bytes += 2 * slot_bytes + heapBytes(value[key] as Value, room - bytes) // the field's name (shared) and value
    if (bytes > room) return bytes
  }
  return bytes
}
