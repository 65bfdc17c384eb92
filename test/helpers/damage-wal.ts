import { closeSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs'
import { join } from 'node:path'

// The WAL frame header (docs/format.md, "WAL frame"): magic "TWAL", payload_len u32,
// lsn u64, batch_start_lsn u64, checksum u64, then the payload, padded to 8 bytes.
const header_bytes = 32

export interface WalFrame {
  segment: string
  offset: number
  lsn: number
  payload_len: number
}

/** Every frame of every segment in `<db>/wal`, found by walking the frame headers. */
export function walFrames(db: string): WalFrame[] {
  const frames: WalFrame[] = []
  const dir = join(db, 'wal')
  for (const segment of readdirSync(dir).filter((n) => n.endsWith('.wal')).sort()) {
    const bytes = readFileSync(join(dir, segment))
    let offset = 0
    while (offset + header_bytes <= bytes.length && bytes.toString('latin1', offset, offset + 4) === 'TWAL') {
      const payload_len = bytes.readUInt32LE(offset + 4)
      frames.push({ segment, offset, lsn: Number(bytes.readBigUInt64LE(offset + 8)), payload_len })
      offset += Math.ceil((header_bytes + payload_len) / 8) * 8
    }
  }
  return frames
}

/** Flips one payload byte of `frame` (the directory must be closed). */
export function flipPayloadByte(db: string, frame: WalFrame): void {
  const at = frame.offset + header_bytes + Math.floor(frame.payload_len / 2)
  const file = join(db, 'wal', frame.segment)
  const bytes = readFileSync(file)
  const fd = openSync(file, 'r+')
  try {
    writeSync(fd, Buffer.from([(bytes[at] as number) ^ 0xff]), 0, 1, at)
  } finally {
    closeSync(fd)
  }
}
