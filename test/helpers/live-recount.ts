// What a tenant holds, counted afresh by reading every entry of its rows and index
// trees (key and value bytes, and the rows of its rows trees): the figure a tenant's
// usage (`live_bytes`, `live_rows`, src/txn/live-usage.ts) must equal.
import type { Database } from '../../src/database/index.js'
import { internalsOf } from '../../src/database/internals.js'
import { metaTree, rowsPrefix, tenantPrefix } from '../../src/txn/index.js'

export interface Recount {
  bytes: number
  rows: number
}

export function recount(db: Database, tenant: string): Recount {
  const head = internalsOf(db).committer.head()
  const out = { bytes: 0, rows: 0 }
  for (const tree of head.trees()) {
    if (!tree.name.startsWith(tenantPrefix(tenant)) || tree.name === metaTree(tenant)) continue
    const rows = tree.name.startsWith(rowsPrefix(tenant))
    for (const [key, value] of head.scan(tree.name)) {
      out.bytes += key.length + value.length
      if (rows) out.rows += 1
    }
  }
  return out
}

/** A tenant's usage figures of what it holds. */
export function held(db: Database, tenant: string): Recount {
  const usage = db.tenant(tenant).usage()
  return { bytes: usage.live_bytes, rows: usage.live_rows }
}
