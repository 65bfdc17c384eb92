// Decodes a range batch from native/src/snapshot.rs: entries of `key_len: u32 LE`,
// key, `value_len: u32 LE`, value. Keys and values are views into the one Buffer.

export type Entry = [key: Buffer, value: Buffer]

export function decodeRangeBatch(batch: Buffer): Entry[] {
  const entries: Entry[] = []
  let at = 0
  while (at < batch.length) {
    const keyLength = batch.readUInt32LE(at)
    const key = batch.subarray(at + 4, at + 4 + keyLength)
    at += 4 + keyLength
    const valueLength = batch.readUInt32LE(at)
    const value = batch.subarray(at + 4, at + 4 + valueLength)
    at += 4 + valueLength
    entries.push([key, value])
  }
  return entries
}

/** One difference: `before` null when added, `after` null when removed. */
export interface DiffEntry {
  key: Buffer
  before: Buffer | null
  after: Buffer | null
}

const absent = 0xffffffff

/** Decodes a diff batch from native/src/snapshot.rs (lengths of 0xFFFFFFFF are absent). */
export function decodeDiffBatch(batch: Buffer): DiffEntry[] {
  const entries: DiffEntry[] = []
  let at = 0
  const take = (): Buffer | null => {
    const length = batch.readUInt32LE(at)
    at += 4
    if (length === absent) return null
    const slice = batch.subarray(at, at + length)
    at += length
    return slice
  }
  while (at < batch.length) {
    const key = take() as Buffer
    entries.push({ key, before: take(), after: take() })
  }
  return entries
}
