// `tenantdb repair <dir>` (docs/operations.md, "Repairing the space map"): recounts the
// space map from the trees, writes it with a checkpoint, and verifies. The space map is
// derivable from the pages, so nothing is lost; rows behind damaged pages stay damaged
// and are listed. Exit 0 when the directory then verifies clean, 1 otherwise; a locked
// directory is exit 2 (main.ts).
import { positionals, requireDatabaseDir } from './database-dir.js'
import { watchProgress } from './progress.js'

export async function repair(argv: string[]): Promise<void> {
  const [dir] = positionals(argv, 'repair <dir>', 1, 1)
  requireDatabaseDir(dir)
  const { repairDirectory } = await import('../database/index.js')
  const line = watchProgress(`repairing ${dir}`)
  let report
  try {
    report = await repairDirectory(dir, { watch: (read) => line.watch(read) })
  } finally {
    line.finish()
  }
  const { live, free, pending, releasing } = report.space
  process.stdout.write(`space map rebuilt from the trees: ${live} live, ${free} free, ${pending} pending, ${releasing} releasing\n`)
  if (report.problems.length === 0) {
    process.stdout.write(`verified ${report.pages} pages, ${report.entries} entries: clean\n`)
    return
  }
  for (const problem of report.problems) process.stdout.write(`${problem}\n`)
  const n = report.problems.length
  process.stderr.write(`tenantdb: ${dir} still has ${n} problem${n === 1 ? '' : 's'} the space map does not explain: damaged pages (restore the tenants they hold from a backup)\n`)
  process.exitCode = 1
}
