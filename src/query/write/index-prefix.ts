// The rows an index holds for one value of its first field: the primary keys of its
// entries under that value's encoding (a tuple prefix is a byte prefix), in index
// order. Lookups (lookup.ts) and reference deletes (references.ts) read them.
import type { Value } from '../../lang/ast.js'
import { decodeKey, encodeKey, prefixEnd } from '../../codec/index.js'
import type { TxnView } from '../../txn/index.js'

const batch_entries = 1000

/** Row keys (encoded primary keys) of the entries of index tree `tree` whose first value is `value`; at most `limit`. */
export function rowKeysUnder(view: TxnView, tree: string, value: Value, limit = Infinity): Buffer[] {
  const prefix = encodeKey([value])
  const end = prefixEnd(prefix)
  const keys: Buffer[] = []
  let bounds = { lower: prefix, lowerInclusive: true, ...(end === null ? {} : { upper: end, upperInclusive: false }) }
  for (;;) {
    const batch = view.range(tree, { ...bounds, limit: Math.min(batch_entries, limit - keys.length) })
    for (const [entry] of batch) keys.push(encodeKey([decodeKey(entry).at(-1) ?? null]))
    const last = batch.at(-1)
    if (last === undefined || keys.length >= limit || batch.length < batch_entries) return keys
    bounds = { ...bounds, lower: last[0], lowerInclusive: false }
  }
}
