// `like` and `matches` (docs/language.md "Patterns"). `matches` runs on RE2's semantics
// through re2js, RE2's JavaScript port, which never backtracks: a match takes time
// linear in the text, but also in the size of the compiled pattern (its automaton is
// simulated when it cannot be made deterministic), about 20 ns per character and
// instruction, and one match cannot be interrupted. So a match whose bound, text length
// × program size, is over eel_pattern_steps_max is refused before it starts, and every
// match is charged to the statement's pace (pace.ts) by that bound. `like` has a
// matcher of its own (like.ts), linear too. Patterns are bounded in length
// (eel_pattern_chars_max) and compiled ones kept for reuse.
import { RE2JS } from 're2js'
import { eel_pattern_cache_entries_max, eel_pattern_chars_max, eel_pattern_steps_max } from '../../limits.js'
import { QueryError } from '../errors.js'
import { LikePattern } from './like.js'
import { charge } from '../pace/index.js'

const compiled = new Map<string, RE2JS | LikePattern>()

/** Steps of a pattern function per unit of the statement's pace (pace.ts: a unit is about a row's evaluation). */
const steps_per_pace_unit = 32

function cached<T extends RE2JS | LikePattern>(key: string, make: () => T): T {
  const found = compiled.get(key)
  if (found !== undefined) {
    compiled.delete(key)
    compiled.set(key, found)
    return found as T
  }
  const made = make()
  if (compiled.size >= eel_pattern_cache_entries_max) compiled.delete(compiled.keys().next().value as string)
  compiled.set(key, made)
  return made
}

function checkLength(pattern: string, fn: string): void {
  if (pattern.length > eel_pattern_chars_max) {
    throw new QueryError('type_error', `${fn}() takes patterns of at most ${eel_pattern_chars_max} characters, got ${pattern.length}`)
  }
}

/** Whether `text` holds a match of the regular expression `pattern` anywhere (anchor with ^ and $). */
export function regexMatches(text: string, pattern: string): boolean {
  checkLength(pattern, 'matches')
  const program = cached(`r${pattern}`, () => {
    try {
      return RE2JS.compile(pattern, 0)
    } catch (err) {
      throw new QueryError('type_error', `matches(): invalid regular expression ${JSON.stringify(pattern)}: ${err instanceof Error ? err.message : String(err)}`)
    }
  })
  const steps = (text.length + 1) * program.programSize()
  if (steps > eel_pattern_steps_max) {
    throw new QueryError('type_error', `matches(): a text of ${text.length} characters with this pattern (${program.programSize()} instructions) could take ${steps} steps, more than the limit of ${eel_pattern_steps_max}; shorten the text or the pattern`)
  }
  charge(Math.ceil(steps / steps_per_pace_unit))
  return program.matcher(text).find()
}

/**
 * SQL's LIKE, case-sensitive: `%` any run of characters, `_` any one character (a
 * code point), `\` takes the next character literally; the whole text must match.
 */
export function likeMatches(text: string, pattern: string): boolean {
  checkLength(pattern, 'like')
  const like = cached(`l${pattern}`, () => new LikePattern(pattern))
  charge(Math.ceil((text.length * like.wordsPerStep) / steps_per_pace_unit))
  return like.matches(text)
}
