// A tenant token's name (docs/api.md, "Tenant tokens"): a label shown in listings (the
// console, `tenantdb token list`), so it may hold no character that changes how the
// text around it reads there. Control characters (C0, DEL, C1: a NUL, an escape
// sequence, a carriage return) and the bidirectional formatting characters (the marks
// U+200E and U+200F, the embeddings and overrides U+202A to U+202E, the isolates
// U+2066 to U+2069) could make one token's line pass for another's.
import { access_token_name_chars_max } from '../limits.js'
import { TenantError } from './errors.js'

const refused = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/** `name`, if it is a name a token may be issued with; else a TenantError `bad_request` saying why. */
export function checkTokenName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > access_token_name_chars_max) {
    throw new TenantError('bad_request', `name must be a string of 1 to ${access_token_name_chars_max} characters`)
  }
  const found = refused.exec(name)
  if (found !== null) {
    // The character is named, never echoed: echoing it would do what it is refused for.
    const code = `U+${(found[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
    throw new TenantError('bad_request', `name may not hold control characters (C0, DEL, C1) nor bidirectional formatting characters (U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069); it holds ${code} at character ${[...name.slice(0, found.index)].length + 1}`)
  }
  return name
}
