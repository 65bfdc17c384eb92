// Reading a backup archive (manifest.ts has the format) into a directory: each file is
// written as it streams in, hashed on the way, and once the manifest (the last entry)
// has arrived every file is checked against it: the same files in the same order, each
// of its size and checksum. Anything else is a BackupArchiveError. The caller owns the
// directory and removes it on failure (src/database/restore.ts).
import { mkdir, open } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import tar from 'tar-stream'
import { backup_manifest_bytes_max } from '../limits.js'
import { BackupArchiveError } from './archive-error.js'
import { isBackupFilePath, manifest_name, parseManifest, type Manifest, type ManifestFile } from './manifest.js'
import { xxh64 } from './xxh64.js'

/** Extracts `archive` into `dir` (an existing empty directory) and checks it; returns its manifest. */
export async function extractArchive(archive: Readable, dir: string): Promise<Manifest> {
  const extract = tar.extract()
  const feeding = pipeline(archive, extract)
  // Its failure surfaces through the entries below (or is the same failure).
  feeding.catch(() => {})
  const found: ManifestFile[] = []
  let manifest: Manifest | undefined
  try {
    for await (const entry of extract) {
      const { name, type, size } = entry.header
      const data = entry as AsyncIterable<Buffer>
      if (manifest !== undefined) throw damaged(`an entry follows the manifest (${name})`)
      if (type !== 'file') throw damaged(`entry ${name} is a ${String(type)}, not a file`)
      if (name === manifest_name) {
        if (size === undefined || size > backup_manifest_bytes_max) throw damaged(`its ${manifest_name} is over ${backup_manifest_bytes_max} bytes`)
        manifest = parseManifest(await collect(data))
        continue
      }
      if (!isBackupFilePath(name)) throw damaged(`it holds ${JSON.stringify(name)}, which no backup holds`)
      if (found.some((f) => f.path === name)) throw damaged(`it holds ${name} twice`)
      found.push(await writeFile(data, dir, name))
    }
    await feeding
  } catch (err) {
    extract.destroy()
    throw asArchiveError(err)
  }
  if (manifest === undefined) throw damaged(`it ends without its manifest (${manifest_name}, the last entry): it is incomplete`)
  check(manifest, found)
  return manifest
}

/** The files found must be the manifest's, in its order, each of its size and checksum. */
function check(manifest: Manifest, found: readonly ManifestFile[]): void {
  const listed = new Set(manifest.files.map((f) => f.path))
  const held = new Set(found.map((f) => f.path))
  const missing = manifest.files.find((f) => !held.has(f.path))
  if (missing !== undefined) throw damaged(`it lacks ${missing.path}, which its manifest lists`)
  const extra = found.find((f) => !listed.has(f.path))
  if (extra !== undefined) throw damaged(`it holds ${extra.path}, which its manifest does not list`)
  for (const [i, want] of manifest.files.entries()) {
    const got = found[i] as ManifestFile
    if (got.path !== want.path) throw damaged(`its files are not in the manifest's order (${got.path} where ${want.path} is listed)`)
    if (got.bytes !== want.bytes) throw damaged(`${got.path} is ${got.bytes} bytes; the manifest says ${want.bytes}`)
    if (got.xxh64 !== want.xxh64) throw damaged(`${got.path} is damaged: its xxh64 is ${got.xxh64}; the manifest says ${want.xxh64}`)
  }
}

async function writeFile(entry: AsyncIterable<Buffer>, dir: string, name: string): Promise<ManifestFile> {
  const path = join(dir, name)
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const hash = await xxh64()
  // 'wx': never over a file already there; owner-only, like every file of a directory.
  const file = await open(path, 'wx', 0o600)
  let bytes = 0
  try {
    for await (const chunk of entry) {
      hash.update(chunk)
      bytes += chunk.length
      await file.write(chunk)
    }
    await file.sync()
  } finally {
    await file.close()
  }
  return { path: name, bytes, xxh64: hash.digest() }
}

async function collect(entry: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of entry) chunks.push(chunk)
  return Buffer.concat(chunks)
}

function damaged(what: string): BackupArchiveError {
  return new BackupArchiveError('archive_damaged', `the archive is damaged: ${what}`)
}

/**
 * Our own refusals as they are; an error of the operating system (reading the archive,
 * writing the directory: ENOENT, ENOSPC, EIO…) as it is; anything else came from the
 * tar reader (a bad header checksum, a truncated stream) and is damage.
 */
function asArchiveError(err: unknown): unknown {
  if (err instanceof BackupArchiveError) return err
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return err
  return damaged(`not a whole tar stream (${err instanceof Error ? err.message : String(err)})`)
}
