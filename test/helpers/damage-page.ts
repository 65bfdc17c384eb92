import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs'

const page_bytes = 4096
const leaf_type = 3

/**
 * Flips one payload byte of the leaf page holding `text` in the page file, and returns
 * that page's number. The database must be closed first: its only checkpoint is the
 * one at close, so the page file holds exactly one (live) copy of each leaf.
 */
export function flipByteInLeaf(file: string, text: string): number {
  const bytes = readFileSync(file)
  const needle = Buffer.from(text)
  for (let page = 0; (page + 1) * page_bytes <= bytes.length; page += 1) {
    const slot = bytes.subarray(page * page_bytes, (page + 1) * page_bytes)
    if (slot[24] !== leaf_type) continue
    const at = slot.indexOf(needle)
    if (at === -1) continue
    const fd = openSync(file, 'r+')
    try {
      const one = Buffer.alloc(1)
      readSync(fd, one, 0, 1, page * page_bytes + at)
      one[0] = (one[0] as number) ^ 0xff
      writeSync(fd, one, 0, 1, page * page_bytes + at)
    } finally {
      closeSync(fd)
    }
    return page
  }
  throw new Error(`no leaf page holds '${text}'`)
}
