// Eel's static types, as the checker infers them. `unknown` is a value whose type
// is only known at run time (json fields, nested fields); it checks against
// anything and is checked again when evaluated.
import type { Value } from '../../lang/ast.js'
import type { FieldType } from '../../schema/ir.js'

export type EelType =
  /** `duration`: milliseconds, never stored (docs/language.md "Time"). */
  | { kind: 'int' | 'float' | 'string' | 'bool' | 'timestamp' | 'duration' | 'null' | 'unknown' }
  | { kind: 'list'; item: EelType }
  /** `fields` when known (a looked-up row); a json record's are not. */
  | { kind: 'record'; fields?: ReadonlyMap<string, EelType> }

export const t = {
  int: { kind: 'int' },
  float: { kind: 'float' },
  string: { kind: 'string' },
  bool: { kind: 'bool' },
  timestamp: { kind: 'timestamp' },
  duration: { kind: 'duration' },
  null: { kind: 'null' },
  unknown: { kind: 'unknown' },
  record: { kind: 'record' },
  list: (item: EelType): EelType => ({ kind: 'list', item }),
} as const satisfies Record<string, EelType | ((item: EelType) => EelType)>

export function fromFieldType(type: FieldType): EelType {
  if (type.kind === 'list') return t.list(fromFieldType(type.item))
  if (type.kind === 'json') return t.unknown
  return { kind: type.kind }
}

export function typeName(type: EelType): string {
  return type.kind === 'list' ? `[${typeName(type.item)}]` : type.kind
}

export function isNumeric(type: EelType): boolean {
  return type.kind === 'int' || type.kind === 'float' || type.kind === 'unknown' || type.kind === 'null'
}

/** Whether values of the two types can be compared with == or an ordering. */
export function comparable(a: EelType, b: EelType): boolean {
  if (a.kind === 'unknown' || b.kind === 'unknown' || a.kind === 'null' || b.kind === 'null') return true
  if (isNumeric(a) && isNumeric(b)) return true
  // Timestamps compare with ISO-8601 strings (how JSON carries them).
  if ((a.kind === 'timestamp' && b.kind === 'string') || (a.kind === 'string' && b.kind === 'timestamp')) return true
  if (a.kind === 'list' && b.kind === 'list') return comparable(a.item, b.item)
  return a.kind === b.kind
}

/** The static type of a run-time value (a parameter's, say). */
export function typeOfValue(value: Value): EelType {
  if (value === null) return t.null
  if (typeof value === 'boolean') return t.bool
  if (typeof value === 'number') return Number.isInteger(value) ? t.int : t.float
  if (typeof value === 'string') return t.string
  if (value instanceof Date) return t.timestamp
  if (Array.isArray(value)) {
    const items = value.map(typeOfValue).filter((item) => item.kind !== 'null')
    const first = items[0]
    return t.list(first !== undefined && items.every((item) => item.kind === first.kind) ? first : t.unknown)
  }
  return t.record
}

/** Short rendering of a value for messages: string "x", int 3, list [1, 2]. */
export function describeValue(value: Value): string {
  const type = typeOfValue(value)
  const shown = value instanceof Date ? value.toISOString() : JSON.stringify(value)
  const clipped = shown.length > 40 ? `${shown.slice(0, 37)}...` : shown
  return type.kind === 'null' ? 'null' : `${typeName(type)} ${clipped}`
}
