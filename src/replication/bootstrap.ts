// A node's directory from the cluster (docs/replication.md, "Bootstrap" and
// "Rejoining"): a copy of the primary's online backup (GET /api/v1/backup), restored
// and checked as `tenantdb restore` does; and, for a directory that diverged, the
// directory moved aside whole, with the frames the cluster never acknowledged written
// out to a named file in it (docs/format.md, "Diverged frames"), before a new copy is
// made. Nothing is deleted.
import { open, rename, writeFile } from 'node:fs/promises'
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { join } from 'node:path'
import { CodedError } from '../coded-error.js'
import { restoreArchive, type Replica } from '../database/index.js'
import { replication_read_bytes_max, replication_read_frames_max } from '../limits.js'

/** The primary did not hand over its backup: the node cannot join. */
export class BootstrapError extends CodedError<'bootstrap_failed'> {
  constructor(message: string) {
    super('bootstrap_failed', message)
  }
}

/** Restores the backup of the primary at `url` (an /api/v1 URL or its origin) into `dir` (absent or empty); resolves with its LSN. */
export async function copyFromPrimary(url: string, token: string, dir: string): Promise<number> {
  const base = url.replace(/\/+$/, '').replace(/\/api\/v1$/, '')
  const response = await fetch(`${base}/api/v1/backup`, { headers: { authorization: `Bearer ${token}` } })
  if (!response.ok || response.body === null) {
    const hint = response.status === 401 ? ': the nodes of a cluster share one service token (SERVICE_TOKEN or --token)' : ''
    throw new BootstrapError(`the primary at ${base} answered the backup request with ${response.status}${hint}`)
  }
  const report = await restoreArchive(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), dir)
  return report.lsn
}

export const diverged_frames_file = 'diverged.frames'
export const diverged_info_file = 'diverged.json'
/** The first 8 bytes of a diverged frames file. */
export const diverged_frames_magic = 'TDBDIVG1'

export interface DivergedInfo {
  cluster: string
  database: string
  node: string
  /** Frames after it were never acknowledged by the cluster. */
  common_lsn: number
  head_lsn: number
  /** The first LSN the file holds (the WAL may have dropped older ones: they are only in this directory's pages). */
  first_lsn_in_file: number | null
  reason: string
  at: string
}

/**
 * Writes the frames after `info.common_lsn` that the WAL still holds, and the info,
 * into `dir` (still open): `diverged.frames` is the magic, then per frame its LSN
 * (u64), payload length (u32) and payload, little-endian.
 */
export async function writeDiverged(replica: Replica, dir: string, info: Omit<DivergedInfo, 'first_lsn_in_file'>): Promise<DivergedInfo> {
  const file = await open(join(dir, diverged_frames_file), 'w', 0o600)
  let first: number | null = null
  try {
    await file.write(Buffer.from(diverged_frames_magic))
    let after = Math.max(info.common_lsn, replica.oldestLsn() - 1)
    for (;;) {
      const frames = await replica.frames(after, replication_read_frames_max, replication_read_bytes_max)
      if (frames.length === 0) break
      for (const frame of frames) {
        const header = Buffer.alloc(12)
        header.writeBigUInt64LE(BigInt(frame.lsn), 0)
        header.writeUInt32LE(frame.payload.length, 8)
        await file.write(header)
        await file.write(frame.payload)
        first ??= frame.lsn
        after = frame.lsn
      }
    }
    await file.sync()
  } finally {
    await file.close()
  }
  const full = { ...info, first_lsn_in_file: first }
  await writeFile(join(dir, diverged_info_file), `${JSON.stringify(full, null, 2)}\n`, { mode: 0o600 })
  return full
}

/** Renames the (closed) directory `dir` aside; returns where it went. */
export async function moveAside(dir: string): Promise<string> {
  const aside = `${dir.replace(/\/+$/, '')}.diverged-${new Date().toISOString().replace(/[:.]/g, '-')}`
  await rename(dir, aside)
  return aside
}
