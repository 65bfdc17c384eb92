// Eel's built-in functions: their type rules (for the checker) and their
// implementations (for the evaluator). A function of a null argument gives null,
// except the predicates (`contains`, `starts_with`), which are two-valued like every
// predicate and give false, and `coalesce`, whose point is nulls.
import type { Value } from '../../lang/ast.js'
import { compareValues } from '../../codec/index.js'
import { QueryError } from '../errors.js'
import { t, type EelType } from './types.js'
import type { BuiltinFunction } from './function-type.js'
import { more_functions } from './functions-more.js'

export type { BuiltinFunction } from './function-type.js'

const stringLike = (type: EelType | undefined) =>
  type === undefined || type.kind === 'string' || type.kind === 'unknown' || type.kind === 'null'
const numberLike = (type: EelType | undefined) =>
  type === undefined || type.kind === 'int' || type.kind === 'float' || type.kind === 'unknown' || type.kind === 'null'

function stringFunction(apply: (s: string) => string): BuiltinFunction {
  return {
    args: [1, 1],
    type: ([a]) => (stringLike(a) ? t.string : 'expects a string'),
    call: ([a]) => (typeof a === 'string' ? apply(a) : null),
  }
}

export const functions: Record<string, BuiltinFunction> = {
  lower: stringFunction((s) => s.toLowerCase()),
  upper: stringFunction((s) => s.toUpperCase()),
  len: {
    args: [1, 1],
    type: ([a]) => (a === undefined || ['string', 'list', 'unknown', 'null'].includes(a.kind) ? t.int : 'expects a string or a list'),
    // Length in Unicode code points, not UTF-16 units.
    call: ([a]) => (typeof a === 'string' ? [...a].length : Array.isArray(a) ? a.length : null),
  },
  contains: {
    args: [2, 2],
    type: ([a]) => (a === undefined || ['string', 'list', 'unknown', 'null'].includes(a.kind) ? t.bool : 'expects a string or a list first'),
    call: ([a, b]) => {
      if (typeof a === 'string') return typeof b === 'string' && a.includes(b)
      if (Array.isArray(a)) return a.some((item) => compareValues(item, b ?? null) === 0)
      return false
    },
  },
  starts_with: {
    args: [2, 2],
    type: ([a, b]) => (stringLike(a) && stringLike(b) ? t.bool : 'expects two strings'),
    call: ([a, b]) => typeof a === 'string' && typeof b === 'string' && a.startsWith(b),
  },
  coalesce: {
    args: [1, 16],
    type: (args) => args.find((a) => a.kind !== 'null') ?? t.null,
    call: (args) => args.find((a) => a !== null) ?? null,
  },
  abs: {
    args: [1, 1],
    type: ([a]) => (numberLike(a) ? (a ?? t.unknown) : 'expects a number'),
    call: ([a]) => (typeof a === 'number' ? Math.abs(a) : null),
  },
  round: {
    args: [1, 2],
    type: ([a, digits]) =>
      numberLike(a) && (digits === undefined || digits.kind === 'int') ? (digits === undefined ? t.int : t.float) : 'expects a number and optionally an int of digits',
    call: ([a, digits]) => {
      if (typeof a !== 'number') return null
      const places = typeof digits === 'number' ? digits : 0
      if (!Number.isInteger(places) || places < 0 || places > 100) {
        throw new QueryError('type_error', `round() takes 0 to 100 digits, got ${places}`)
      }
      // toFixed rounds the exact binary value, half away from zero (2.15 is stored as
      // 2.1499…, so it rounds to 2.1, as in SQLite and Python); scaling by 10^d first
      // would round a product that is itself already rounded.
      return Number(a.toFixed(places))
    },
  },
  now: {
    args: [0, 0],
    type: () => t.timestamp,
    call: (_args, now) => now,
  },
  ...more_functions,
}
