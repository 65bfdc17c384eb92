// Decodes a range batch from native/src/snapshot.rs: entries of `key_len: u32 LE`,
// key, `value_len: u32 LE`, value. Keys and values are views into the one Buffer. The
// batches of a batched point read (keys in, values out) are encoded and decoded here too.

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

/** The keys of a batched point read: each `key_len: u32 LE`, key. */
export function encodeKeyBatch(keys: readonly Uint8Array[]): Buffer {
  let bytes = 0
  for (const key of keys) bytes += 4 + key.length
  const out = Buffer.allocUnsafe(bytes)
  let at = 0
  for (const key of keys) {
    at = out.writeUInt32LE(key.length, at)
    out.set(key, at)
    at += key.length
  }
  return out
}

/** The answer of a batched point read: `count` values, views into `batch`, null where absent. */
export function decodeValueBatch(batch: Buffer, count: number): Array<Buffer | null> {
  const values = new Array<Buffer | null>(count)
  let at = 0
  for (let i = 0; i < count; i += 1) {
    const length = batch.readUInt32LE(at)
    at += 4
    if (length === absent) {
      values[i] = null
      continue
    }
    values[i] = batch.subarray(at, at + length)
    at += length
  }
  if (at !== batch.length) throw new Error(`a batched read answered ${batch.length} bytes for ${count} keys, ${at} expected`)
  return values
}
