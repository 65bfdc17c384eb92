// What each committed transaction read of other transactions' writes. Within an atomic
// block a read sees the block's own earlier appends (docs/language.md, "Writes"), so a
// read of a key the transaction appended to must be the list as first read (or some
// list) followed by exactly its own appends, in order: anything else is an `internal`
// anomaly. The rest of the list, its *external* prefix, is the version of the key in
// the transaction's snapshot: what dependencies are inferred from.
import type { Anomaly, History, Txn } from './history.js'

export interface ExternalRead {
  txn: Txn
  key: number
  /** The list as read, own appends included (a state the history says was installed). */
  full: number[]
  /** The list in the reader's snapshot: `full` without the reader's own appends. */
  prefix: number[]
}

export function externalReads(history: History): { reads: ExternalRead[]; anomalies: Anomaly[] } {
  const reads: ExternalRead[] = []
  const anomalies: Anomaly[] = []
  for (const txn of history) {
    if (txn.type !== 'ok') continue // only a committed transaction's reads are known
    const known = new Map<number, number[]>() // key -> external prefix of an earlier read
    const own = new Map<number, number[]>() // key -> own appends so far
    for (const op of txn.ops) {
      if (op.f === 'append') {
        own.set(op.key, [...(own.get(op.key) ?? []), op.value])
        continue
      }
      if (op.value === null) continue
      const mine = own.get(op.key) ?? []
      const before = known.get(op.key)
      const split = op.value.length - mine.length
      const tail = split >= 0 ? op.value.slice(split) : []
      const prefix = split >= 0 ? op.value.slice(0, split) : []
      const consistent = split >= 0 && same(tail, mine) && (before === undefined || same(prefix, before))
      if (!consistent) {
        const expected = before === undefined ? `a list ending with its own appends ${show(mine)}` : show([...before, ...mine])
        anomalies.push({
          class: 'internal',
          explanation: `T${txn.id} read key ${op.key} as ${show(op.value)}, but its earlier reads and appends in the same transaction say ${expected}`,
          txns: [txn.id],
        })
        continue
      }
      known.set(op.key, prefix)
      reads.push({ txn, key: op.key, full: op.value, prefix })
    }
  }
  return { reads, anomalies }
}

export const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i])

export const show = (list: readonly number[]) => `[${list.join(' ')}]`
