// `like` and `matches` (docs/language.md "Patterns"): both run on RE2's semantics
// through re2js, RE2's JavaScript port, whose matching takes time linear in the text
// and never backtracks, so no pattern can make a query hang. `like` is translated to
// such an expression. Patterns are bounded in length (eel_pattern_chars_max) and
// compiled ones kept for reuse.
import { RE2JS } from 're2js'
import { eel_pattern_cache_entries_max, eel_pattern_chars_max } from '../limits.js'
import { QueryError } from './errors.js'

const compiled = new Map<string, RE2JS>()

function compile(key: string, source: string, flags: number, what: string): RE2JS {
  const found = compiled.get(key)
  if (found !== undefined) {
    compiled.delete(key)
    compiled.set(key, found)
    return found
  }
  let program: RE2JS
  try {
    program = RE2JS.compile(source, flags)
  } catch (err) {
    throw new QueryError('type_error', `${what}: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (compiled.size >= eel_pattern_cache_entries_max) compiled.delete(compiled.keys().next().value as string)
  compiled.set(key, program)
  return program
}

function checkLength(pattern: string, fn: string): void {
  if (pattern.length > eel_pattern_chars_max) {
    throw new QueryError('type_error', `${fn}() takes patterns of at most ${eel_pattern_chars_max} characters, got ${pattern.length}`)
  }
}

/** Whether `text` holds a match of the regular expression `pattern` anywhere (anchor with ^ and $). */
export function regexMatches(text: string, pattern: string): boolean {
  checkLength(pattern, 'matches')
  return compile(`r${pattern}`, pattern, 0, `matches(): invalid regular expression ${JSON.stringify(pattern)}`).matcher(text).find()
}

/**
 * SQL's LIKE, case-sensitive: `%` any run of characters, `_` any one character (a
 * code point), `\` takes the next character literally; the whole text must match.
 */
export function likeMatches(text: string, pattern: string): boolean {
  checkLength(pattern, 'like')
  return compile(`l${pattern}`, likeToRegex(pattern), RE2JS.DOTALL, `like(): invalid pattern ${JSON.stringify(pattern)}`).matches(text)
}

function likeToRegex(pattern: string): string {
  let out = ''
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i += 1) {
    const ch = chars[i] as string
    if (ch === '%') out += '.*'
    else if (ch === '_') out += '.'
    else if (ch === '\\') {
      const next = chars[i + 1]
      if (next === undefined) throw new QueryError('type_error', `like(): pattern ${JSON.stringify(pattern)} ends with an escape character`)
      out += RE2JS.quote(next)
      i += 1
    } else {
      out += RE2JS.quote(ch)
    }
  }
  return out
}
