// What every maintenance command checks before it opens anything (kept apart from the
// commands so a usage mistake is caught before the database's modules load).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { UsageError } from './usage-error.js'

/**
 * Refuses a directory without a page file. Engine.open creates a database where there
 * is none, and a maintenance command must not turn a typo into an empty database.
 */
export function requireDatabaseDir(dir: string): void {
  if (!existsSync(join(dir, 'pages'))) {
    throw new Error(`${dir} is not a tenantdb database directory (it has no 'pages' file)`)
  }
}

/** The positional arguments of a command that takes no options, between min and max of them. */
export function positionals(argv: string[], synopsis: string, min: number, max: number): [string, ...string[]] {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: {}, strict: true, allowPositionals: true })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const args = parsed.positionals
  if (args.length < min || args.some((a) => a === '')) throw new UsageError(`missing argument; expected: tenantdb ${synopsis}`)
  if (args.length > max) throw new UsageError(`too many arguments; expected: tenantdb ${synopsis}`)
  return args as [string, ...string[]]
}
