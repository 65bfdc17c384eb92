// What kind of Eel value a JS value is, checked once here for both codecs and for
// compareValues, so every part of the codec refuses exactly the same inputs.
import type { Value } from '../lang/ast.js'
import { CodecError } from './error.js'

export type Kind = 'null' | 'bool' | 'number' | 'string' | 'timestamp' | 'list' | 'record'

/**
 * The total order across kinds (design decision; docs/language.md says only that null
 * is smallest): null < bool < number < string < timestamp < list < record.
 * Timestamps sit after strings, in the order the language lists its scalar types;
 * containers come last because they are json-only and rarely compared with scalars.
 */
export const kind_rank: Readonly<Record<Kind, number>> = {
  null: 0, bool: 1, number: 2, string: 3, timestamp: 4, list: 5, record: 6,
}

export { nesting_depth_max } from '../limits.js'

/** Dates carry ms since the epoch within ±8.64e15 (ECMA-262 TimeClip). */
export const timestamp_ms_max = 8.64e15

/** The kind of `value`; throws CodecError for anything that is not a storable Eel value. */
export function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case 'boolean': return 'bool'
    case 'string': return 'string'
    case 'number':
      if (Number.isNaN(value)) throw new CodecError('NaN is not a storable value')
      return 'number'
    case 'object': {
      if (value === null) return 'null'
      if (Array.isArray(value)) return 'list'
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new CodecError('invalid Date is not a storable value')
        return 'timestamp'
      }
      const proto: unknown = Object.getPrototypeOf(value)
      if (proto === Object.prototype || proto === null) return 'record'
      throw new CodecError(`${describe(value)} is not a storable value`)
    }
    default:
      throw new CodecError(`${typeof value} is not a storable value`)
  }
}

function describe(value: object): string {
  const name = (value.constructor as { name?: unknown } | undefined)?.name
  return typeof name === 'string' && name !== '' ? `an instance of ${name}` : 'this object'
}

/** Narrows a record Value (already classified by kindOf) for indexing. */
export type RecordValue = { [field: string]: Value }

/** Sets an own field, also one named "__proto__" (a plain assignment would set the prototype). */
export function defineField(record: RecordValue, name: string, value: Value): void {
  if (name === '__proto__') {
    Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true })
  } else {
    record[name] = value
  }
}
