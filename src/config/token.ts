// Where the service token comes from (docs/operations.md, "The token"). First found wins: the --token
// flag, SERVICE_TOKEN, <dir>/service.token; otherwise a fresh random token is
// written to <dir>/service.token with mode 0600.
import { randomBytes } from 'node:crypto'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CodedError } from '../coded-error.js'
import { token_chars_advised_min, token_random_bytes } from '../limits.js'

export const token_file_name = 'service.token'

export type TokenSource = 'flag' | 'env' | 'file' | 'generated'

export interface ResolvedToken {
  token: string
  source: TokenSource
  /** The token file, for the sources `file` and `generated`. */
  file?: string
  /** Set when the token file can be read by other users. */
  warning?: string
}

/** A service token that cannot be used (not printable ASCII), or none where one must be given. */
export class TokenError extends CodedError<'service_token_unusable'> {
  constructor(message: string) {
    super('service_token_unusable', message)
  }
}

// Printable ASCII without spaces: the token must survive a header and a query string.
const token_pattern = /^[\x21-\x7e]+$/

export function checkToken(token: string, origin: string): string {
  if (!token_pattern.test(token)) {
    throw new TokenError(`${origin} must be printable ASCII without spaces and not empty`)
  }
  return token
}

export async function resolveToken(options: {
  flag?: string | undefined
  env?: string | undefined
  dir: string
  /** False: none found is a TokenError instead of a generated one (the nodes of a cluster share one token). */
  generate?: boolean
}): Promise<ResolvedToken> {
  if (options.flag !== undefined) return given(checkToken(options.flag, '--token'), 'flag', '--token')
  if (options.env !== undefined && options.env !== '') return given(checkToken(options.env, 'SERVICE_TOKEN'), 'env', 'SERVICE_TOKEN')
  const file = join(options.dir, token_file_name)
  const existing = await readTokenFile(file)
  if (existing !== undefined) return existing
  if (options.generate === false) throw new TokenError(`no token: give the one the cluster's nodes share with SERVICE_TOKEN or --token (or put it in ${file})`)
  const token = randomBytes(token_random_bytes).toString('base64url')
  // 'wx': never overwrite a token file another process wrote meanwhile.
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' })
  return { token, source: 'generated', file }
}

/** A token the operator chose, with a warning when it is short enough to guess. */
function given(token: string, source: 'flag' | 'env', origin: string): ResolvedToken {
  if (token.length >= token_chars_advised_min) return { token, source }
  return {
    token,
    source,
    warning: `the token from ${origin} is ${token.length} characters: wrong guesses are throttled, but a right one is never refused, so use ${token_chars_advised_min} or more random characters`,
  }
}

async function readTokenFile(file: string): Promise<ResolvedToken | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  const token = checkToken(text.trim(), file)
  const mode = (await stat(file)).mode & 0o777
  const resolved: ResolvedToken = { token, source: 'file', file }
  if ((mode & 0o077) !== 0) {
    resolved.warning = `${file} is readable by other users (mode ${mode.toString(8)}); run chmod 600 on it`
  }
  return resolved
}
