// Backup and restore of a database directory (docs/operations.md, "Backup and
// restore"): the archive of a directory no server holds (`tenantdb backup DIR`), and a
// restore that extracts an archive beside its target, checks every file, opens and
// verifies the result, and only then renames it into place. A running server's backup
// is `Database.backup()` (`GET /api/v1/backup`).
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { BackupArchiveError, corruption_log_name, extractArchive, readCorruptionLog, writeArchive, type BackupArchive, type Manifest, type UnreadableLine } from '../backup/index.js'
import { CodedError } from '../coded-error.js'
import { Engine, EngineError, type EngineBackup } from '../engine/index.js'
import type { WatchOptions } from './verify.js'
import { syncDir } from '../sync-dir.js'

/** The archive of an engine's backup in progress; the archive's end ends it (and runs `after`). */
export function archiveOf(backup: EngineBackup, after: () => Promise<unknown> = async () => {}): BackupArchive {
  return writeArchive({
    lsn: backup.lsn,
    files: backup.files,
    read: (index, offset, length) => backup.read(index, offset, length),
    end: async () => {
      backup.end()
      await after()
    },
  })
}

/**
 * The backup archive of `dir`, a directory no server holds: opened read-only (a shared
 * lock, so refused with `locked` while a server runs: back that up over HTTP), so not
 * a byte of it changes. Read the archive to its end, or destroy it, to close it.
 */
export async function backupDirectory(dir: string): Promise<BackupArchive> {
  const engine = await Engine.open(dir, { readOnly: true })
  try {
    return archiveOf(await engine.beginBackup(), () => engine.close())
  } catch (err) {
    await engine.close()
    throw err
  }
}

/** A restore's target holds something already: nothing was written. */
export class RestoreTargetError extends CodedError<'restore_target_not_empty'> {}

export interface RestoreReport {
  /** The restored directory opens at this LSN: every commit up to it. */
  lsn: number
  files: number
  bytes: number
  /** What the restored corruption.log holds (docs/operations.md, "Backup and restore"). */
  corruption: RestoredCorruption
}

export interface RestoredCorruption {
  /** Corruption reports the engine reads in it, carried over from the backed-up directory. */
  reports: number
  /** Their detections, summed (the engine's corruption total). */
  total: number
  /** Its lines that are no report the engine can read: it ignores them. */
  unreadable_log_lines: number
  /** The first of them (corruption_log_lines_named_max), by line number. */
  unreadable: UnreadableLine[]
}

/**
 * Restores `archive` into `dir`, which must be absent or empty. Every file is written
 * into a new sibling directory and checked against the manifest (sizes, checksums,
 * nothing missing or extra), which is then opened read-only (recovery replays the
 * copied WAL: it must reach exactly the manifest's LSN) and verified, and only then
 * renamed to `dir`. Any failure removes the sibling: `dir` is left as it was. A
 * damaged or unreadable archive is a BackupArchiveError.
 */
export async function restoreArchive(archive: Readable, dir: string, options: WatchOptions = {}): Promise<RestoreReport> {
  const target = resolve(dir)
  await requireEmptyOrAbsent(target)
  await mkdir(dirname(target), { recursive: true })
  const staging = join(dirname(target), `.${basename(target)}.restoring-${randomBytes(6).toString('hex')}`)
  await mkdir(staging, { mode: 0o700 })
  try {
    await mkdir(join(staging, 'wal'), { mode: 0o700 })
    const manifest = await extractArchive(archive, staging)
    const { reports, total } = await checkOpens(staging, manifest, options)
    const log = manifest.files.some((f) => f.path === corruption_log_name) ? readCorruptionLog(await readFile(join(staging, corruption_log_name))) : null
    await syncDir(join(staging, 'wal'))
    await syncDir(staging)
    // Onto an absent or empty directory only: one that filled up meanwhile fails here.
    await rename(staging, target)
    await syncDir(dirname(target))
    return {
      lsn: manifest.lsn,
      files: manifest.files.length,
      bytes: manifest.files.reduce((sum, f) => sum + f.bytes, 0),
      corruption: { reports, total, unreadable_log_lines: log?.unreadable_lines ?? 0, unreadable: log?.unreadable ?? [] },
    }
  } catch (err) {
    await rm(staging, { recursive: true, force: true })
    throw err
  }
}

async function requireEmptyOrAbsent(dir: string): Promise<void> {
  let entries: string[]
  try {
    if (!(await stat(dir)).isDirectory()) throw new RestoreTargetError('restore_target_not_empty', `${dir} exists and is not a directory`)
    entries = await readdir(dir)
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return
    throw err
  }
  if (entries.length > 0) {
    throw new RestoreTargetError('restore_target_not_empty', `${dir} is not empty: a restore goes into an empty or absent directory, so it never mixes with other files`)
  }
}

/** The restored files open, replay to exactly the manifest's LSN, and verify clean; the corruption reports they carry. */
async function checkOpens(dir: string, manifest: Manifest, options: WatchOptions): Promise<{ reports: number; total: number }> {
  const damaged = (what: string) => new BackupArchiveError('archive_damaged', `the archive is damaged: ${what}`)
  let engine: Engine
  try {
    engine = await Engine.open(dir, { readOnly: true })
  } catch (err) {
    if (err instanceof EngineError && err.code === 'corrupted') throw damaged(`the restored directory does not open (${err.message})`)
    throw err
  }
  try {
    const lsn = engine.headLsn()
    if (lsn !== manifest.lsn) throw damaged(`the restored directory opens at LSN ${lsn}, its manifest says ${manifest.lsn}`)
    options.watch?.(() => engine.progress())
    const { problems } = await engine.verify()
    if (problems.length > 0) throw damaged(`the restored directory fails verify: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`)
    const stats = engine.stats()
    return { reports: stats.corruption.length, total: stats.corruption_total }
  } finally {
    await engine.close()
  }
}
