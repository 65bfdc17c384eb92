// `tenantdb restore ARCHIVE DIR` (docs/operations.md, "Backup and restore"): unpacks a
// backup archive (`-`: stdin) into DIR, absent or empty, checking every file's size and
// checksum against the manifest, then opening (the copied WAL replays to the manifest's
// LSN) and verifying the result before it is renamed into place. Any damage is exit 1
// with nothing restored; progress on a terminal. Corruption reports the restored
// directory carries, and corruption.log lines the engine cannot read, are warnings.
import { createReadStream, existsSync, statSync } from 'node:fs'
import { Readable } from 'node:stream'
import type { RestoredCorruption } from '../database/index.js'
import { positionals } from './database-dir.js'
import { progress, watchProgress } from './progress.js'

export async function restore(argv: string[]): Promise<void> {
  const [archive, dir] = positionals(argv, 'restore <archive> <dir>', 2, 2) as [string, string]
  if (archive !== '-' && !existsSync(archive)) throw new Error(`${archive} does not exist`)
  const { BackupArchiveError, restoreArchive } = await import('../database/index.js')
  const input = archive === '-' ? process.stdin : createReadStream(archive)
  const meter = progress('restoring', archive === '-' ? undefined : statSync(archive).size)
  // Once every file is extracted and checked, the restored directory is verified.
  const checking = watchProgress('verifying the restored directory')
  const counted = Readable.from((async function* () {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      meter.add(chunk.length)
      yield chunk
    }
  })())
  let report
  try {
    report = await restoreArchive(counted, dir, {
      watch: (read) => {
        meter.finish()
        checking.watch(read)
      },
    })
  } catch (err) {
    if (err instanceof BackupArchiveError) throw new Error(`${err.message}; nothing was restored into ${dir}`)
    throw err
  } finally {
    meter.finish()
    checking.finish()
  }
  process.stdout.write(`restored LSN ${report.lsn}: ${report.files} files, ${report.bytes} bytes into ${dir}; verified\n`)
  process.stderr.write(corruptionWarnings(report.corruption))
}

/**
 * The warnings about the restored corruption.log, one line each (stderr; nothing when it
 * is clean): the reports it carries, and the lines the engine cannot read as reports
 * and ignores, by number (docs/operations.md, "Backup and restore").
 */
export function corruptionWarnings(corruption: RestoredCorruption): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  let text = ''
  if (corruption.reports > 0) {
    text += `tenantdb: warning: the restored directory carries ${plural(corruption.reports, 'corruption report')} (${plural(corruption.total, 'detection')}) ` +
      'from the backed-up directory; GET /api/v1/health/detail lists them\n'
  }
  if (corruption.unreadable_log_lines > 0) {
    const named = corruption.unreadable.length < corruption.unreadable_log_lines ? `; the first ${corruption.unreadable.length}` : ''
    text += `tenantdb: warning: ${plural(corruption.unreadable_log_lines, 'unreadable corruption log line')} in corruption.log, ` +
      `which the server ignores, so any corruption they recorded is not reported${named}:\n`
    for (const { line, text: shown } of corruption.unreadable) text += `  line ${line}: ${JSON.stringify(shown)}\n`
  }
  return text
}
