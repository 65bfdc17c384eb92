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
