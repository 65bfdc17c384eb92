// The backup archive's format (docs/format.md, "Backup archive"): what `GET
// /api/v1/backup` and `tenantdb backup` write and `tenantdb restore` reads.
//
// A POSIX ustar archive (written and read with tar-stream), regular-file entries only,
// in this order, then the two zero blocks that end a tar archive:
//
// | entry                      | content                                                        |
// |----------------------------|----------------------------------------------------------------|
// | `pages`                    | the page file, its whole length when the backup began          |
// | `checkpoint.journal`       | the checkpoint journal (empty at rest), when there is one      |
// | `corruption.log`           | the persisted corruption reports, when there are any           |
// | `wal/{first_lsn:020}.wal`  | each WAL segment, oldest first, up to its last durable frame   |
// | `MANIFEST.json`            | the manifest below: always the last entry                       |
//
// Each entry is a 512-byte ustar header (mode 0600), the file's bytes, and zeros to the
// next 512-byte boundary; so the archive's size is known before its first byte
// (`archiveBytes`), and the HTTP route sends it as Content-Length. Not in an archive:
// `LOCK` and `service.token` (a secret; a server on the restored directory makes its
// own, docs/operations.md "The token").
//
// The manifest, one JSON object (UTF-8, no whitespace, keys in this order):
//
// | key       | value                                                                      |
// |-----------|----------------------------------------------------------------------------|
// | `format`  | `"tenantdb-backup"`                                                        |
// | `version` | `1` (`backup_format_version`); a restore refuses any other                 |
// | `lsn`     | every commit up to this LSN is in the archive; the restored directory opens exactly there |
// | `files`   | one object per file entry, in archive order: `path` (as the entry names it), `bytes` (its size), `xxh64` (xxHash64, seed 0, of its bytes: 16 lowercase hex digits) |
//
// The checksums are computed while the files stream out and checked while they stream
// in, so neither side reads a byte twice; the manifest is last because only then are
// they known.
import { BackupArchiveError } from './archive-error.js'

export const backup_format = 'tenantdb-backup'
export const backup_format_version = 1
export const manifest_name = 'MANIFEST.json'
/** A tar block: every header is one, and every entry's data is padded to a multiple. */
export const tar_block_bytes = 512

export interface ManifestFile {
  path: string
  bytes: number
  /** xxHash64 of the file's bytes, 16 lowercase hex digits. */
  xxh64: string
}

export interface Manifest {
  format: typeof backup_format
  version: typeof backup_format_version
  lsn: number
  files: ManifestFile[]
}

const manifest_keys = ['format', 'version', 'lsn', 'files'] as const
const file_keys = ['path', 'bytes', 'xxh64'] as const
const xxh64_pattern = /^[0-9a-f]{16}$/
/** The files a database directory's backup may hold, besides the manifest. */
const file_pattern = /^(?:pages|checkpoint\.journal|corruption\.log|wal\/[0-9]{20}\.wal)$/

/** Whether `path` names a file a backup may hold (nothing else is ever extracted). */
export function isBackupFilePath(path: string): boolean {
  return file_pattern.test(path)
}

/** The manifest's bytes: keys in the documented order, so its size follows from its values. */
export function encodeManifest(manifest: Manifest): Buffer {
  const ordered = {
    format: manifest.format,
    version: manifest.version,
    lsn: manifest.lsn,
    files: manifest.files.map((f) => ({ path: f.path, bytes: f.bytes, xxh64: f.xxh64 })),
  }
  const bytes = Buffer.from(JSON.stringify(ordered), 'utf8')
  // Paired with parseManifest: what is written is what a restore accepts.
  const back = parseManifest(bytes)
  if (JSON.stringify(back) !== JSON.stringify(ordered)) throw new Error('assertion: a written manifest reads back as itself')
  return bytes
}

/** The manifest in `bytes`, or a BackupArchiveError saying what is wrong with it. */
export function parseManifest(bytes: Buffer): Manifest {
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new BackupArchiveError('archive_damaged', `the archive's ${manifest_name} is not JSON`)
  }
  const bad = (what: string) => new BackupArchiveError('archive_damaged', `the archive's ${manifest_name} ${what}`)
  if (!isPlainObject(value)) throw bad('is not an object')
  if (value.format !== backup_format) throw bad(`does not say it is a ${backup_format} archive`)
  if (value.version !== backup_format_version) {
    throw new BackupArchiveError('archive_unsupported', `the archive is in backup format ${String(value.version)}; this tenantdb reads format ${backup_format_version}`)
  }
  if (!sameKeys(value, manifest_keys)) throw bad(`has keys other than ${manifest_keys.join(', ')}`)
  if (!isCount(value.lsn)) throw bad('has no valid lsn')
  if (!Array.isArray(value.files)) throw bad('has no list of files')
  const seen = new Set<string>()
  const files = value.files.map((file: unknown, i: number): ManifestFile => {
    if (!isPlainObject(file) || !sameKeys(file, file_keys)) throw bad(`file ${i} is not {path, bytes, xxh64}`)
    const { path, bytes: size, xxh64 } = file
    if (typeof path !== 'string' || !isBackupFilePath(path)) throw bad(`file ${i} has a path a backup never holds: ${JSON.stringify(path)}`)
    if (seen.has(path)) throw bad(`lists ${path} twice`)
    seen.add(path)
    if (!isCount(size)) throw bad(`file ${path} has no valid size`)
    if (typeof xxh64 !== 'string' || !xxh64_pattern.test(xxh64)) throw bad(`file ${path} has no valid xxh64`)
    return { path, bytes: size, xxh64 }
  })
  if (!seen.has('pages')) throw bad('does not list the page file (pages)')
  return { format: backup_format, version: backup_format_version, lsn: value.lsn, files }
}

/**
 * The exact size of the archive of these files: a header and padded data per file,
 * the same for the manifest (whose size follows from the values, the checksums being
 * fixed-width), and the two zero blocks at the end.
 */
export function archiveBytes(lsn: number, files: ReadonlyArray<{ path: string; bytes: number }>): number {
  const placeholder = files.map((f) => ({ path: f.path, bytes: f.bytes, xxh64: '0'.repeat(16) }))
  const manifest = encodeManifest({ format: backup_format, version: backup_format_version, lsn, files: placeholder }).length
  return [...files.map((f) => f.bytes), manifest].reduce((sum, n) => sum + tar_block_bytes + padded(n), 0) + 2 * tar_block_bytes
}

/** `n` rounded up to whole tar blocks. */
export function padded(n: number): number {
  return Math.ceil(n / tar_block_bytes) * tar_block_bytes
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function sameKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value)
  return own.length === keys.length && keys.every((k) => own.includes(k))
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

// The shape the table above documents: a manifest of one file encodes to exactly the
// bytes written out here by hand, so a change of keys, order or spelling fails at load.
const sample = encodeManifest({ format: backup_format, version: backup_format_version, lsn: 7, files: [{ path: 'pages', bytes: 8192, xxh64: '0123456789abcdef' }] })
if (sample.toString('utf8') !== '{"format":"tenantdb-backup","version":1,"lsn":7,"files":[{"path":"pages","bytes":8192,"xxh64":"0123456789abcdef"}]}') {
  throw new Error('assertion: the manifest has the documented shape')
}
