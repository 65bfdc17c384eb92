// `tenantdb verify <dir>`: every page and WAL frame checksum plus the tree invariants
// (docs/operations.md). Exit 0 clean, 1 damaged; a locked directory is exit 2 (main.ts).
// The directory is opened read-only: verify changes no byte, so it works on a full
// disk and on a read-only mount (docs/operations.md, "Verifying a directory").
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { verifyDirectory } from '../database/index.js'
import { watchProgress } from './progress.js'
import { UsageError } from './usage-error.js'

export async function verify(argv: string[]): Promise<void> {
  const [dir] = positionals(argv, 'verify <dir>', 1, 1)
  requireDatabaseDir(dir)
  const line = watchProgress(`verifying ${dir}`)
  let report
  try {
    report = await verifyDirectory(dir, { watch: (read) => line.watch(read) })
  } finally {
    line.finish()
  }
  if (report.problems.length === 0) {
    const { live, free, pending, releasing } = report.space
    // Reachable and free slots are disjoint and cover the file (docs/format.md, "Space map").
    process.stdout.write(`verified ${report.pages} pages, ${report.entries} entries, WAL frames: ok; ` +
      `page slots: ${live} live, ${free} free, ${pending} pending, ${releasing} releasing\n`)
    return
  }
  // One problem a line on stdout, so scripts can count or grep them.
  for (const problem of report.problems) process.stdout.write(`${problem}\n`)
  const n = report.problems.length
  process.stderr.write(`tenantdb: ${dir} is damaged: ${n} problem${n === 1 ? '' : 's'} (${report.pages} pages, ${report.entries} entries checked)\n`)
  process.exitCode = 1
}

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
