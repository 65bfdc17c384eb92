// Type changes between two versions of a field: how the planner classifies them and how
// the executor converts each stored value. Widenings (int→float, T→T?, T→[T], T→json)
// never fail and need no marker; every other convertible change needs `narrowed` and
// may fail per value, which blocks the migration; the rest cannot be converted at all.
import type { Value } from '../lang/ast.js'
import { sameType, typeText } from './field-type.js'
import type { FieldType } from './ir.js'
import { parseIsoTimestamp } from './timestamp.js'

export interface FieldShape {
  type: FieldType
  optional: boolean
}

export type ChangeClass = 'same' | 'widen' | 'narrow' | 'impossible'

const RANK: Record<ChangeClass, number> = { same: 0, widen: 1, narrow: 2, impossible: 3 }

function worst(a: ChangeClass, b: ChangeClass): ChangeClass {
  return RANK[a] >= RANK[b] ? a : b
}

export function classifyChange(from: FieldShape, to: FieldShape): ChangeClass {
  const optional: ChangeClass = from.optional === to.optional ? 'same' : to.optional ? 'widen' : 'narrow'
  return worst(classifyType(from.type, to.type), optional)
}

function classifyType(from: FieldType, to: FieldType): ChangeClass {
  if (sameType(from, to)) return 'same'
  if (to.kind === 'json') return 'widen'
  if (from.kind === 'json') return 'narrow'
  if (from.kind === 'list' && to.kind === 'list') return classifyType(from.item, to.item)
  if (to.kind === 'list') return worst(classifyType(from, to.item), 'widen')
  if (from.kind === 'list') return classifyType(from.item, to) === 'impossible' ? 'impossible' : 'narrow'
  if (from.kind === 'int' && to.kind === 'float') return 'widen'
  if (from.kind === 'float' && to.kind === 'int') return 'narrow'
  // Text in either direction: formatting never fails, parsing may; both change meaning
  // (order, arithmetic), so both need the marker.
  if (to.kind === 'string' || from.kind === 'string') return 'narrow'
  return 'impossible'
}

export type Converted = { ok: true; value: Value } | { ok: false; reason: string }

/**
 * One stored value (`undefined` when the row lacks the field) converted from the old
 * field shape to the new; `reason` says why not ("value 2.5 does not convert to int").
 */
export function convertValue(value: Value | undefined, from: FieldShape, to: FieldShape): Converted {
  if (value === undefined || value === null) {
    return to.optional ? { ok: true, value: null } : { ok: false, reason: 'null does not convert to a required field' }
  }
  return convertType(value, from.type, to.type)
}

function convertType(value: Value, from: FieldType, to: FieldType): Converted {
  const fail = (): Converted => ({ ok: false, reason: `value ${describe(value)} does not convert to ${typeText(to)}` })
  if (sameType(from, to)) return { ok: true, value }
  if (to.kind === 'json') return { ok: true, value: toJson(value) }
  if (from.kind === 'json') return fromJson(value, to) ?? fail()
  if (from.kind === 'list' && to.kind === 'list') return Array.isArray(value) ? convertItems(value, from.item, to.item) : fail()
  if (to.kind === 'list') {
    const item = convertType(value, from, to.item)
    return item.ok ? { ok: true, value: [item.value] } : item
  }
  if (from.kind === 'list') {
    if (!Array.isArray(value) || value.length !== 1) return fail()
    return convertType(value[0] ?? null, from.item, to)
  }
  return convertScalar(value, to) ?? fail()
}

function convertItems(items: Value[], from: FieldType, to: FieldType): Converted {
  const out: Value[] = []
  for (const item of items) {
    const converted = convertType(item, from, to)
    if (!converted.ok) return converted
    out.push(converted.value)
  }
  return { ok: true, value: out }
}

/** A scalar to a scalar type, or null when it does not convert. */
function convertScalar(value: Value, to: FieldType): Converted | null {
  const ok = (v: Value): Converted => ({ ok: true, value: v })
  switch (to.kind) {
    case 'int':
      if (typeof value === 'number') return Number.isSafeInteger(value) ? ok(value) : null
      if (typeof value === 'string' && /^-?(0|[1-9]\d*)$/.test(value)) return Number.isSafeInteger(Number(value)) ? ok(Number(value)) : null
      return null
    case 'float':
      if (typeof value === 'number') return ok(value)
      if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number.isFinite(Number(value)) ? ok(Number(value)) : null
      return null
    case 'bool':
      return value === 'true' ? ok(true) : value === 'false' ? ok(false) : null
    case 'timestamp': {
      const date = typeof value === 'string' ? parseIsoTimestamp(value) : null
      return date === null ? null : ok(date)
    }
    case 'string':
      if (value instanceof Date) return ok(value.toISOString())
      return typeof value === 'number' || typeof value === 'boolean' ? ok(String(value)) : null
    default:
      return null
  }
}

function toJson(value: Value): Value {
  if (value instanceof Date) return value.toISOString()
  return Array.isArray(value) ? value.map(toJson) : value
}

/** A json value that already has type `to` (ISO strings count as timestamps), or null. */
function fromJson(value: Value, to: FieldType): Converted | null {
  if (to.kind === 'list') {
    if (!Array.isArray(value)) return null
    const items: Value[] = []
    for (const item of value) {
      const converted = item === null ? null : fromJson(item, to.item)
      if (converted === null || !converted.ok) return null
      items.push(converted.value)
    }
    return { ok: true, value: items }
  }
  if (to.kind === 'string') return typeof value === 'string' ? { ok: true, value } : null
  if (to.kind === 'bool') return typeof value === 'boolean' ? { ok: true, value } : null
  if (to.kind === 'int' || to.kind === 'float' || to.kind === 'timestamp') {
    return typeof value === (to.kind === 'timestamp' ? 'string' : 'number') ? convertScalar(value, to) : null
  }
  return { ok: true, value }
}

function describe(value: Value): string {
  const shown = value instanceof Date ? value.toISOString() : JSON.stringify(value)
  return shown.length > 40 ? `${shown.slice(0, 37)}...` : shown
}
