// Small helpers over FieldType shared by the IR builder and the migration planner.
import type { FieldType, ScalarType } from './ir.js'

/** How a type is written in Eel: `int`, `[string]`, `int?`. */
export function typeText(type: FieldType, optional = false): string {
  const base = type.kind === 'list' ? `[${typeText(type.item)}]` : type.kind
  return optional ? `${base}?` : base
}

export function sameType(a: FieldType, b: FieldType): boolean {
  if (a.kind === 'list' || b.kind === 'list') return a.kind === 'list' && b.kind === 'list' && sameType(a.item, b.item)
  return a.kind === b.kind
}

/** Types with a total order and a key encoding: what primary keys and indexes may use. */
export const KEY_TYPES: readonly ScalarType[] = ['int', 'float', 'string', 'bool', 'timestamp']

export function isKeyType(type: FieldType): boolean {
  return type.kind !== 'list' && KEY_TYPES.includes(type.kind)
}
