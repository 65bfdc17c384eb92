// Adya's dependency graph of the committed transactions, inferred from list-append
// version orders (as Elle does):
//   ww  Ti appended value i of a key, Tj the next value: Tj overwrote Ti's version.
//   wr  Tj read a list whose last value Ti appended: Tj read Ti's version.
//   rw  Ti read a list of n values, Tj appended value n+1: Tj overwrote what Ti read
//       (an anti-dependency).
// Only transactions that committed (ok, or info and observed) are nodes; a value
// whose writer failed or is unknown is reported by read-anomalies.ts and adds no edge.
import type { EdgeKind } from './history.js'
import type { ExternalRead } from './external-reads.js'
import type { Writer } from './writers.js'

/** For each edge, a key that justifies it (kept for explanations). */
export type Edges = Map<number, Map<number, Map<EdgeKind, number>>>

export class DependencyGraph {
  readonly edges: Edges = new Map()
  readonly counts: Record<EdgeKind, number> = { ww: 0, wr: 0, rw: 0 }

  add(from: number, to: number, kind: EdgeKind, key: number): void {
    if (from === to) return
    let out = this.edges.get(from)
    if (out === undefined) this.edges.set(from, (out = new Map()))
    let kinds = out.get(to)
    if (kinds === undefined) out.set(to, (kinds = new Map()))
    if (!kinds.has(kind)) {
      kinds.set(kind, key)
      this.counts[kind] += 1
    }
  }

  /** The successors of `node` reachable by an edge of one of `kinds`, with the kind used (ww, then wr, then rw). */
  *successors(node: number, kinds: ReadonlySet<EdgeKind>): Generator<{ to: number; kind: EdgeKind; key: number }> {
    for (const [to, edge] of this.edges.get(node) ?? []) {
      for (const kind of ['ww', 'wr', 'rw'] as const) {
        const key = edge.get(kind)
        if (key !== undefined && kinds.has(kind)) {
          yield { to, kind, key }
          break
        }
      }
    }
  }

  nodes(): number[] {
    const all = new Set<number>()
    for (const [from, out] of this.edges) {
      all.add(from)
      for (const to of out.keys()) all.add(to)
    }
    return [...all]
  }
}

export function inferDependencies(
  reads: ExternalRead[], orders: Map<number, number[]>, writers: Map<number, Writer>, committed: ReadonlySet<number>,
): DependencyGraph {
  const graph = new DependencyGraph()
  const writerOf = (value: number | undefined) => {
    const writer = value === undefined ? undefined : writers.get(value)
    return writer !== undefined && committed.has(writer.txn.id) ? writer.txn.id : undefined
  }
  for (const [key, order] of orders) {
    for (let i = 1; i < order.length; i += 1) {
      const a = writerOf(order[i - 1])
      const b = writerOf(order[i])
      if (a !== undefined && b !== undefined) graph.add(a, b, 'ww', key)
    }
  }
  for (const { txn, key, prefix } of reads) {
    const source = writerOf(prefix.at(-1))
    if (source !== undefined) graph.add(source, txn.id, 'wr', key)
    const order = orders.get(key)
    const next = order === undefined ? undefined : writerOf(order[prefix.length])
    if (next !== undefined) graph.add(txn.id, next, 'rw', key)
  }
  return graph
}
