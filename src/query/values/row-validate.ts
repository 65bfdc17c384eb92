// Rows are type-checked on every write: values are converted to their field's type
// (ISO strings to timestamps) or refused with a sentence saying why. Unknown fields
// are an error; absent fields take their default, or null when optional.
import type { Value } from '../../lang/ast.js'
import type { CollectionIR, FieldIR, FieldType, JsonValue } from '../../schema/ir.js'
import { parseTimestamp } from './evaluate.js'
import { describeValue } from './types.js'

/** A refusal: the sentence, and the field (or parameter) it is about, for QueryError's `fields`. */
export interface Refusal {
  error: string
  field?: string
}

export type Checked<T> = { ok: true; value: T } | ({ ok: false } & Refusal)

/**
 * Converts `value` to `type`, or says why it cannot be. `field` names what holds the
 * value (`noun` says whether a field or a query's parameter), in the sentence and as
 * the refusal's `field`.
 */
export function convertValue(value: Value, type: FieldType, optional: boolean, field: string, noun: 'field' | 'parameter' = 'field'): Checked<Value> {
  const fail = (expected: string): Checked<Value> => ({ ok: false, error: `${noun} '${field}' is ${expected}, got ${describeValue(value)}`, field })
  if (value === null) return optional ? { ok: true, value: null } : { ok: false, error: `${noun} '${field}' is required, got null`, field }
  switch (type.kind) {
    case 'int':
      return typeof value === 'number' && Number.isSafeInteger(value) ? { ok: true, value } : fail('int')
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : fail('float')
    case 'string':
      return typeof value === 'string' ? { ok: true, value } : fail('string')
    case 'bool':
      return typeof value === 'boolean' ? { ok: true, value } : fail('bool')
    case 'timestamp': {
      if (value instanceof Date && !Number.isNaN(value.getTime())) return { ok: true, value }
      const parsed = typeof value === 'string' ? parseTimestamp(value) : null
      return parsed === null ? fail('timestamp') : { ok: true, value: parsed }
    }
    case 'json':
      return isJson(value) ? { ok: true, value } : fail('json')
    case 'list': {
      if (!Array.isArray(value)) return fail(`[${type.item.kind === 'list' ? 'list' : type.item.kind}]`)
      const items: Value[] = []
      for (const item of value) {
        const converted = convertValue(item, type.item, false, `${field}[]`, noun)
        if (!converted.ok) return { ...converted, field }
        items.push(converted.value)
      }
      return { ok: true, value: items }
    }
  }
}

function isJson(value: Value): boolean {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (value instanceof Date) return false
  if (Array.isArray(value)) return value.every(isJson)
  return Object.values(value).every(isJson)
}

export function defaultValue(field: FieldIR, now: Date): Value {
  if (field.default === null) return null
  if (field.default.kind === 'now') return now
  return fromJson(field.default.value, field.type)
}

function fromJson(value: JsonValue, type: FieldType): Value {
  if (type.kind === 'timestamp' && typeof value === 'string') return parseTimestamp(value) ?? value
  if (type.kind === 'list' && Array.isArray(value)) return value.map((item) => fromJson(item, type.item))
  return value as Value
}

/**
 * A complete, typed row for `collection` from a written record: unknown fields
 * refused, values converted, absent fields defaulted. `autoId` supplies the
 * primary key of collections without a declared primary field.
 */
export function validateRow(
  collection: CollectionIR,
  record: Value,
  now: Date,
  autoId: () => number,
): Checked<Record<string, Value>> {
  const values: Value[] = []
  const refusal = validateFields(collection, record, now, autoId, values)
  if (refusal !== null) return { ok: false, ...refusal }
  const row: Record<string, Value> = {}
  collection.fields.forEach((field, i) => { row[field.name] = values[i] as Value })
  return { ok: true, value: row }
}

/** Field names by collection: checking a record's names needs no Set per row. */
const field_names = new WeakMap<CollectionIR, ReadonlySet<string>>()

/**
 * validateRow without a row: `out[i]` becomes the value of `collection.fields[i]`.
 * Returns the refusal, or null. A bulk insert reuses one `out` for every row (same
 * checks, same errors, in the same order).
 */
export function validateFields(collection: CollectionIR, record: Value, now: Date, autoId: () => number, out: Value[]): Refusal | null {
  if (record === null || typeof record !== 'object' || Array.isArray(record) || record instanceof Date) {
    return { error: `a row of '${collection.name}' must be a record, got ${describeValue(record)}` }
  }
  let known = field_names.get(collection)
  if (known === undefined) {
    known = new Set(collection.fields.map((f) => f.name))
    field_names.set(collection, known)
  }
  for (const name of Object.keys(record)) {
    if (!known.has(name)) return { error: `unknown field '${name}' in '${collection.name}'`, field: name }
  }
  const fields = collection.fields
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i] as FieldIR
    let value: Value | undefined = record[field.name]
    if (value === undefined) {
      if (field.name === collection.primary && collection.primary_auto) value = autoId()
      else if (field.default !== null) value = defaultValue(field, now)
      else if (field.optional) value = null
      else return { error: `field '${field.name}' of '${collection.name}' is required`, field: field.name }
    }
    if (holdsAsIs(value, field.type)) {
      out[i] = value
      continue
    }
    const converted = convertValue(value, field.type, field.optional && field.name !== collection.primary, field.name)
    if (!converted.ok) return { error: converted.error, field: field.name }
    out[i] = converted.value
  }
  return null
}

/** The values convertValue returns unchanged for the scalar types, decided without a result object. */
function holdsAsIs(value: Value, type: FieldType): boolean {
  switch (type.kind) {
    case 'string': return typeof value === 'string'
    case 'int': return typeof value === 'number' && Number.isSafeInteger(value)
    case 'float': return typeof value === 'number' && Number.isFinite(value)
    case 'bool': return typeof value === 'boolean'
    default: return false
  }
}
