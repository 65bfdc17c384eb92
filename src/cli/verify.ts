// `tenantdb verify <dir>`: every page and WAL frame checksum plus the tree invariants
// (docs/operations.md). Exit 0 clean, 1 damaged; a locked directory is exit 2 (main.ts).
// The directory is opened read-only: verify changes no byte, so it works on a full
// disk and on a read-only mount (docs/operations.md, "Verifying a directory").
import { positionals, requireDatabaseDir } from './database-dir.js'
import { watchProgress } from './progress.js'

export async function verify(argv: string[]): Promise<void> {
  const [dir] = positionals(argv, 'verify <dir>', 1, 1)
  requireDatabaseDir(dir)
  const { verifyDirectory } = await import('../database/index.js')
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
