// Time in Eel (docs/language.md "Time"): durations are whole milliseconds, carried at
// run time as numbers and kept apart from numbers by the checker; timestamps are Dates.
// Everything is UTC, so results never depend on the host's time zone.
import type { Value } from '../../lang/ast.js'
import { QueryError } from '../errors.js'

/** The largest instant a Date holds (±8.64e15 ms), beyond which a result is an error. */
const instant_ms_max = 8.64e15

export function timestampAt(ms: number, what: string): Date {
  if (!Number.isFinite(ms) || Math.abs(ms) > instant_ms_max) {
    throw new QueryError('type_error', `timestamp out of range: ${what} is beyond ±8.64e15 ms from 1970`)
  }
  return new Date(ms)
}

/** A duration scaled by a number, rounded to the nearest millisecond (halves away from zero). */
export function wholeMs(ms: number, what: string): number {
  const rounded = Math.sign(ms) * Math.round(Math.abs(ms))
  if (!Number.isSafeInteger(rounded)) throw new QueryError('type_error', `duration overflow: ${what} is beyond ±2^53 ms`)
  return rounded === 0 ? 0 : rounded
}

/**
 * `+ -` with a timestamp on either side: timestamp ± duration is a timestamp,
 * timestamp - timestamp a duration. Undefined when neither side is a timestamp.
 */
export function timeArithmetic(op: string, left: Value, right: Value): Value | undefined {
  const what = () => `${show(left)} ${op} ${show(right)}`
  if (left instanceof Date) {
    if (op === '-' && right instanceof Date) return wholeMs(left.getTime() - right.getTime(), what())
    if (typeof right === 'number' && (op === '+' || op === '-')) return timestampAt(left.getTime() + (op === '+' ? right : -right), what())
  } else if (right instanceof Date && typeof left === 'number' && op === '+') {
    return timestampAt(right.getTime() + left, what())
  }
  if (left instanceof Date || right instanceof Date) throw new QueryError('type_error', `cannot apply '${op}' to ${what()}`)
  return undefined
}

function show(v: Value): string {
  return v instanceof Date ? v.toISOString() : JSON.stringify(v)
}

export type DatePart = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'weekday'

export const date_parts: readonly DatePart[] = ['year', 'month', 'day', 'hour', 'minute', 'second', 'weekday']

/** A part of a timestamp, in UTC; weekday is ISO: 1 Monday … 7 Sunday. */
export function datePart(part: DatePart, at: Date): number {
  switch (part) {
    case 'year': return at.getUTCFullYear()
    case 'month': return at.getUTCMonth() + 1
    case 'day': return at.getUTCDate()
    case 'hour': return at.getUTCHours()
    case 'minute': return at.getUTCMinutes()
    case 'second': return at.getUTCSeconds()
    case 'weekday': return ((at.getUTCDay() + 6) % 7) + 1
  }
}

export const trunc_units = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'] as const
export type TruncUnit = (typeof trunc_units)[number]

const fixed_unit_ms: Partial<Record<TruncUnit, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 }

/** The start of the UTC second, minute, hour, day, ISO week (Monday), month or year holding `at`. */
export function truncate(at: Date, unit: string): Date {
  const ms = at.getTime()
  const fixed = fixed_unit_ms[unit as TruncUnit]
  if (fixed !== undefined) return new Date(ms - mod(ms, fixed))
  switch (unit) {
    case 'week': {
      const day = Math.floor(ms / 86_400_000)
      // 1970-01-01 was a Thursday: Monday is three days before it.
      return new Date((day - mod(day + 3, 7)) * 86_400_000)
    }
    case 'month': return utcDate(at.getUTCFullYear(), at.getUTCMonth())
    case 'year': return utcDate(at.getUTCFullYear(), 0)
    default:
      throw new QueryError('type_error', `date_trunc() takes one of ${trunc_units.join(', ')}, got ${JSON.stringify(unit)}`)
  }
}

/** Midnight of the first of `month` (Date.UTC would read years 0-99 as 19xx). */
function utcDate(year: number, month: number): Date {
  const d = new Date(0)
  d.setUTCFullYear(year, month, 1)
  return d
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b
}
