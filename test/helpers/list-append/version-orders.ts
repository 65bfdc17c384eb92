// The order in which each key's versions were installed. In the list-append model a
// read of a key is the whole list, so every read of a key must be a prefix of its
// longest read, and that longest read is the key's version order: value i+1 was
// appended right after value i. Two reads where neither is a prefix of the other
// (`incompatible-order`), or a read holding one value twice (`duplicate-elements`),
// leave the key without a trustworthy order: no ww or rw dependency is inferred on it.
import type { Anomaly } from './history.js'
import { show, type ExternalRead } from './external-reads.js'

export function versionOrders(reads: ExternalRead[]): { orders: Map<number, number[]>; anomalies: Anomaly[] } {
  const anomalies: Anomaly[] = []
  const byKey = new Map<number, ExternalRead[]>()
  for (const read of reads) byKey.set(read.key, [...(byKey.get(read.key) ?? []), read])
  const orders = new Map<number, number[]>()
  for (const [key, keyReads] of byKey) {
    let trusted = true
    for (const read of keyReads) {
      const dup = read.full.find((v, i) => read.full.indexOf(v) !== i)
      if (dup !== undefined) {
        trusted = false
        anomalies.push({ class: 'duplicate-elements', explanation: `T${read.txn.id} read key ${key} as ${show(read.full)}: ${dup} appears more than once`, txns: [read.txn.id] })
      }
    }
    const longest = keyReads.reduce((a, b) => (b.full.length > a.full.length ? b : a))
    const clash = keyReads.find((read) => !isPrefix(read.full, longest.full))
    if (clash !== undefined) {
      trusted = false
      anomalies.push({
        class: 'incompatible-order',
        explanation: `key ${key}: T${clash.txn.id} read ${show(clash.full)} and T${longest.txn.id} read ${show(longest.full)}; neither is a prefix of the other`,
        txns: [clash.txn.id, longest.txn.id],
      })
    }
    if (trusted) orders.set(key, longest.full)
  }
  return { orders, anomalies }
}

export const isPrefix = (a: readonly number[], b: readonly number[]) => a.length <= b.length && a.every((x, i) => x === b[i])
