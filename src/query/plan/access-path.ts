// How a pipeline reads its collection: the access paths plan.ts chooses and access.ts reads.
import type { IndexIR } from '../../schema/ir.js'

export interface KeyRange {
  lower?: Buffer
  lowerInclusive?: boolean
  upper?: Buffer
  upperInclusive?: boolean
}

export type Access =
  | { kind: 'points'; tree: string; keys: Buffer[] }
  /** `reverse`: read in descending key order (tree-order.ts). */
  | { kind: 'range'; tree: string; range: KeyRange; reverse?: boolean }
  /**
   * `ordered`: the index's fields are all pinned by equalities, so its entries are in
   * primary-key order already; otherwise rows are fetched in primary-key order.
   * `order` (tree-order.ts): the rows in descending primary-key order, or in the
   * index's own order instead.
   */
  | { kind: 'index'; tree: string; index: IndexIR; range: KeyRange; ordered: boolean; order?: IndexOrder }

export type IndexOrder = { by: 'primary'; descending: boolean } | { by: 'index'; descending: boolean; turnTies: boolean }

