// A backup archive's tar entries (docs/format.md, "Backup archive") read by hand and
// written with tar-stream, so a test can take a real archive apart, change a file, and
// put it back together without the restore code it tests.
import tar from 'tar-stream'

export interface Entry { name: string; header: number; data: number; size: number }

/** The entries of a ustar archive, read by hand (name at 0, octal size at 124). */
export function entries(archive: Buffer): Entry[] {
  const found: Entry[] = []
  for (let at = 0; at + 512 <= archive.length;) {
    const header = archive.subarray(at, at + 512)
    if (header.every((b) => b === 0)) break
    const name = header.subarray(0, 100).toString('latin1').replace(/\0.*$/s, '')
    const size = parseInt(header.subarray(124, 136).toString('latin1').replace(/\0.*$/s, '').trim(), 8)
    found.push({ name, header: at, data: at + 512, size })
    at += 512 + Math.ceil(size / 512) * 512
  }
  return found
}

/** An archive of `files` (name → bytes) in that order, written with tar-stream. */
export async function pack(files: Array<[string, Buffer]>): Promise<Buffer> {
  const out = tar.pack()
  const chunks: Buffer[] = []
  const reading = (async () => { for await (const chunk of out as AsyncIterable<Buffer>) chunks.push(chunk) })()
  for (const [name, data] of files) await new Promise<void>((resolve, reject) => out.entry({ name, mode: 0o600 }, data, (err) => (err ? reject(err) : resolve())))
  out.finalize()
  await reading
  return Buffer.concat(chunks)
}

/** The files of an archive, manifest included, as name → bytes. */
export function filesOf(archive: Buffer): Array<[string, Buffer]> {
  return entries(archive).map((e) => [e.name, archive.subarray(e.data, e.data + e.size)])
}
