// The data shape of docs/performance.md: 24-byte keys, 150-byte values, rows of
// `kv {k: string primary, v: string}`. Every engine is given the same keys and values.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const kv_schema = 'collection kv { k: string primary, v: string }\n'

/** Key number i: 24 bytes, in the same order as i. */
export function key(i: number): string {
  return `key-${String(i).padStart(20, '0')}`
}

/** A 150-byte value; `tag` tells rewrites apart. */
export function value(i: number, tag = 'a'): string {
  return `${tag}-${i}-`.padEnd(150, 'v')
}

export type Row = { k: string; v: string }

export function rows(from: number, count: number, tag = 'a'): Row[] {
  return Array.from({ length: count }, (_, j) => ({ k: key(from + j), v: value(from + j, tag) }))
}

/** Writes the kv schema file into `dir` and returns its path. */
export function writeSchema(dir: string): string {
  const path = join(dir, 'kv.eel')
  writeFileSync(path, kv_schema)
  return path
}

/** A fixed pseudo-random permutation step, so reads hit keys all over the tree. */
export function spread(i: number, count: number): number {
  return (i * 7919 + 13) % count
}
