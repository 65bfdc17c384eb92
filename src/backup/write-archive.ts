// Writing a backup archive (manifest.ts has the format) from a backup in progress:
// each file streams out in chunks, hashed on the way, then the manifest. The archive
// is a Node Readable with backpressure, so memory stays at a chunk or two however
// large the directory; destroying it (a client that went away) ends the backup.
import { Readable } from 'node:stream'
import tar from 'tar-stream'
import { backup_chunk_bytes } from '../limits.js'
import { archiveBytes, backup_format, backup_format_version, encodeManifest, isBackupFilePath, manifest_name, type ManifestFile } from './manifest.js'
import { xxh64 } from './xxh64.js'

/** What an archive is written from: a backup in progress (the engine's, or a test's). */
export interface BackupSource {
  /** Every commit up to it is in the files. */
  readonly lsn: number
  /** The files, in archive order, and the bytes to copy of each. */
  readonly files: ReadonlyArray<{ path: string; bytes: number }>
  /** Up to `length` bytes of `files[index]` from `offset`; fewer only at its end. */
  read(index: number, offset: number, length: number): Promise<Buffer>
  /** Called once, when the archive is done, failed or destroyed. */
  end(): void | Promise<void>
}

export interface BackupArchive {
  /** Every commit up to this LSN is in the archive. */
  readonly lsn: number
  /** The archive's exact size in bytes. */
  readonly bytes: number
  /** The archive. Destroying it ends the backup. */
  readonly stream: Readable
}

/** The archive of `source`. Its first read starts the copy. */
export function writeArchive(source: BackupSource, chunkBytes = backup_chunk_bytes): BackupArchive {
  for (const file of source.files) {
    if (!isBackupFilePath(file.path)) throw new Error(`assertion: a backup lists only files an archive may hold, not ${file.path}`)
  }
  const bytes = archiveBytes(source.lsn, source.files)
  let started = false
  const stream = Readable.from(chunks(source, bytes, chunkBytes, () => { started = true }), { objectMode: false })
  // Destroyed before its first read, the generator never runs, nor its `finally`.
  stream.once('close', () => {
    if (!started) void source.end()
  })
  return { lsn: source.lsn, bytes, stream }
}

async function* chunks(source: BackupSource, expected: number, chunkBytes: number, start: () => void): AsyncGenerator<Buffer> {
  start()
  const pack = tar.pack()
  const stop = { stopped: false }
  const packing = fill(pack, source, chunkBytes, stop)
  let written = 0
  try {
    for await (const chunk of pack as AsyncIterable<Buffer>) {
      written += chunk.length
      yield chunk
    }
    // Paired with archiveBytes, whose prediction the HTTP route sent as Content-Length.
    if (written !== expected) throw new Error(`assertion: the archive is ${written} bytes, as predicted (${expected})`)
  } finally {
    stop.stopped = true
    pack.destroy()
    // A read still under way settles before the backup ends.
    await packing
    await source.end()
  }
}

/** Adds every file and then the manifest to `pack`; a failure destroys it with the error. */
async function fill(pack: tar.Pack, source: BackupSource, chunkBytes: number, stop: { stopped: boolean }): Promise<void> {
  // After each wait: the archive may have been destroyed meanwhile (a client went away).
  const goOn = () => {
    if (stop.stopped) throw new Error('the archive was closed')
  }
  try {
    const mtime = new Date()
    const files: ManifestFile[] = []
    for (const [index, { path, bytes }] of source.files.entries()) {
      const hash = await xxh64()
      const entry = pack.entry({ name: path, size: bytes, mode: 0o600, mtime, type: 'file' })
      const done = settled(entry)
      for (let offset = 0; offset < bytes;) {
        const chunk = await source.read(index, offset, Math.min(chunkBytes, bytes - offset))
        goOn()
        if (chunk.length === 0) throw new Error(`assertion: ${path} reads to the ${bytes} bytes the backup lists (ended at ${offset})`)
        hash.update(chunk)
        offset += chunk.length
        if (!entry.write(chunk)) await drained(entry)
        goOn()
      }
      entry.end(() => {})
      await done
      goOn()
      files.push({ path, bytes, xxh64: hash.digest() })
    }
    const manifest = encodeManifest({ format: backup_format, version: backup_format_version, lsn: source.lsn, files })
    const entry = pack.entry({ name: manifest_name, size: manifest.length, mode: 0o600, mtime, type: 'file' })
    const done = settled(entry)
    entry.end(manifest)
    await done
    pack.finalize()
  } catch (err) {
    pack.destroy(err as Error)
  }
}

/** Settles when `entry` has written everything (or rejects when it, or its archive, fails). */
function settled(entry: NodeJS.WritableStream): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    entry.once('finish', () => resolve())
    entry.once('error', reject)
    entry.once('close', () => reject(new Error('the archive was closed')))
  })
  // Awaited later, or never when a read fails first: no unhandled rejection either way.
  done.catch(() => {})
  return done
}

/** Resolves when `entry` takes writes again (rejects when it fails or closes first). */
function drained(entry: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      entry.off('drain', onDrain)
      entry.off('error', onError)
      entry.off('close', onClose)
      if (err === undefined) resolve()
      else reject(err)
    }
    const onDrain = () => done()
    const onError = (err: Error) => done(err)
    const onClose = () => done(new Error('the archive was closed'))
    entry.once('drain', onDrain)
    entry.once('error', onError)
    entry.once('close', onClose)
  })
}
