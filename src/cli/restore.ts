// `tenantdb restore ARCHIVE DIR` (docs/operations.md, "Backup and restore"): unpacks a
// backup archive (`-`: stdin) into DIR, absent or empty, checking every file's size and
// checksum against the manifest, then opening (the copied WAL replays to the manifest's
// LSN) and verifying the result before it is renamed into place. Any damage is exit 1
// with nothing restored; progress on a terminal.
import { createReadStream, existsSync, statSync } from 'node:fs'
import { Readable } from 'node:stream'
import { BackupArchiveError, restoreArchive } from '../database/index.js'
import { progress, watchProgress } from './progress.js'
import { positionals } from './verify.js'

export async function restore(argv: string[]): Promise<void> {
  const [archive, dir] = positionals(argv, 'restore <archive> <dir>', 2, 2) as [string, string]
  if (archive !== '-' && !existsSync(archive)) throw new Error(`${archive} does not exist`)
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
}
