// Eel's functions beyond the first set (functions.ts): the conditional, patterns,
// more of strings and numbers, and time (docs/language.md "Functions", "Time").
import type { Value } from '../../lang/ast.js'
import { QueryError } from '../errors.js'
import type { BuiltinFunction } from './function-type.js'
import { likeMatches, regexMatches } from './pattern.js'
import { parseTimestamp } from './timestamp-text.js'
import { datePart, date_parts, timestampAt, truncate, trunc_units } from './time.js'
import { t, typeName, type EelType } from './types.js'

const loose = (type: EelType | undefined) => type === undefined || type.kind === 'unknown' || type.kind === 'null'
const isString = (type: EelType | undefined) => loose(type) || type?.kind === 'string'
const isNumber = (type: EelType | undefined) => loose(type) || type?.kind === 'int' || type?.kind === 'float'
const isInt = (type: EelType | undefined) => loose(type) || type?.kind === 'int'
const isTimestamp = (type: EelType | undefined) => loose(type) || type?.kind === 'timestamp'

/** Whether two branch types can stand for one another (null, unknown, int within float). */
function unify(a: EelType, b: EelType): EelType | undefined {
  if (a.kind === 'null' || b.kind === 'unknown') return b.kind === 'null' ? a : b
  if (b.kind === 'null' || a.kind === 'unknown') return a
  if ((a.kind === 'int' && b.kind === 'float') || (a.kind === 'float' && b.kind === 'int')) return t.float
  if (a.kind === 'list' && b.kind === 'list') {
    const item = unify(a.item, b.item)
    return item === undefined ? undefined : t.list(item)
  }
  return a.kind === b.kind ? a : undefined
}

/** Code points, so an astral character is one (as len() counts). */
const codePoints = (s: string) => [...s]

function wholeArg(value: Value, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new QueryError('type_error', `${what} must be a whole number of 0 or more, got ${JSON.stringify(value)}`)
  }
  return value
}

function rounding(name: string, apply: (n: number) => number): BuiltinFunction {
  return {
    args: [1, 1],
    type: ([a]) => (isNumber(a) ? t.int : 'expects a number'),
    call: ([a]) => {
      if (typeof a !== 'number') return null
      const result = apply(a)
      if (!Number.isSafeInteger(result)) throw new QueryError('type_error', `integer overflow: ${name}(${a}) is beyond ±2^53`)
      return result === 0 ? 0 : result
    },
  }
}

function part(name: string): BuiltinFunction {
  return {
    args: [1, 1],
    type: ([a]) => (isTimestamp(a) ? t.int : 'expects a timestamp'),
    call: ([a]) => (a instanceof Date ? datePart(name as (typeof date_parts)[number], a) : null),
  }
}

export const more_functions: Record<string, BuiltinFunction> = {
  if: {
    args: [3, 3],
    type: ([c, a, b]) => {
      if (c !== undefined && !loose(c) && c.kind !== 'bool') return `expects a condition first, got ${typeName(c)}`
      const result = unify(a ?? t.null, b ?? t.null)
      return result ?? `gives ${typeName(a ?? t.null)} or ${typeName(b ?? t.null)}; both branches must have one type`
    },
    // Evaluated lazily by evaluate.ts (only the branch taken); this is never called.
    call: () => { throw new Error('if() is evaluated by evaluate.ts') },
  },
  like: {
    args: [2, 2],
    type: ([s, p]) => (isString(s) && isString(p) ? t.bool : 'expects two strings'),
    call: ([s, p]) => typeof s === 'string' && typeof p === 'string' && likeMatches(s, p),
  },
  matches: {
    args: [2, 2],
    type: ([s, p]) => (isString(s) && isString(p) ? t.bool : 'expects two strings'),
    call: ([s, p]) => typeof s === 'string' && typeof p === 'string' && regexMatches(s, p),
  },
  trim: {
    args: [1, 1],
    type: ([s]) => (isString(s) ? t.string : 'expects a string'),
    call: ([s]) => (typeof s === 'string' ? s.trim() : null),
  },
  replace: {
    args: [3, 3],
    type: (args) => (args.every(isString) ? t.string : 'expects three strings'),
    call: ([s, from, to]) => {
      if (typeof s !== 'string' || typeof from !== 'string' || typeof to !== 'string') return null
      return from === '' ? s : s.split(from).join(to)
    },
  },
  split: {
    args: [2, 2],
    type: (args) => (args.every(isString) ? t.list(t.string) : 'expects two strings'),
    call: ([s, sep]) => {
      if (typeof s !== 'string' || typeof sep !== 'string') return null
      return sep === '' ? codePoints(s) : s.split(sep)
    },
  },
  substr: {
    args: [2, 3],
    type: ([s, start, length]) => (isString(s) && isInt(start) && isInt(length) ? t.string : 'expects a string, a start and optionally a length (ints)'),
    call: ([s, start, length]) => {
      if (typeof s !== 'string' || start === null || length === null) return null
      const from = wholeArg(start as Value, 'substr() start')
      const points = codePoints(s)
      const to = length === undefined ? points.length : from + wholeArg(length, 'substr() length')
      return points.slice(from, to).join('')
    },
  },
  floor: rounding('floor', Math.floor),
  ceil: rounding('ceil', Math.ceil),
  timestamp: {
    args: [1, 1],
    type: ([a]) => (loose(a) || a?.kind === 'string' || a?.kind === 'int' || a?.kind === 'timestamp' ? t.timestamp : 'expects an ISO-8601 string or milliseconds since 1970'),
    call: ([a]) => {
      if (a instanceof Date || a === null || a === undefined) return a ?? null
      if (typeof a === 'number') return timestampAt(a, `timestamp(${a})`)
      const parsed = typeof a === 'string' ? parseTimestamp(a) : null
      if (parsed === null) throw new QueryError('type_error', `timestamp() expects an ISO-8601 string, got ${JSON.stringify(a)}`)
      return parsed
    },
  },
  date_trunc: {
    args: [2, 2],
    type: ([a, unit]) => (isTimestamp(a) && isString(unit) ? t.timestamp : `expects a timestamp and a unit (${trunc_units.join(', ')})`),
    call: ([a, unit]) => (a instanceof Date && typeof unit === 'string' ? truncate(a, unit) : null),
  },
  ...Object.fromEntries(date_parts.map((name) => [name, part(name)])),
}
