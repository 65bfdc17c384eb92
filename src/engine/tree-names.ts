// Tree names as the UTF-8 Buffers the binding takes. A read names its tree on every
// call, and encoding the same few names again and again was a measurable share of a
// point read; the table is bounded (forgotten wholesale when full) because tenants,
// and so tree names, are unbounded.
import { tree_name_buffers_max } from '../limits.js'

const encoded = new Map<string, Buffer>()

export function treeNameBytes(tree: string): Buffer {
  let bytes = encoded.get(tree)
  if (bytes === undefined) {
    if (encoded.size >= tree_name_buffers_max) encoded.clear()
    bytes = Buffer.from(tree, 'utf8')
    encoded.set(tree, bytes)
  }
  return bytes
}
