// Lost updates, two ways.
//   lost-update  (Elle's definition) two committed transactions read the same version
//                of a key and both appended to it: whichever committed second wrote
//                over a version its snapshot did not hold, which first-committer-wins
//                forbids. It needs no version order, so it is found even when the
//                overwritten append left no other trace.
//   lost-append  a committed append is missing from a read that began after the append
//                was acknowledged. tenantdb makes a write visible to every snapshot
//                taken after it is acknowledged (docs/architecture.md, "Transactions"),
//                so this is the acknowledged write that vanished: overwritten, or lost
//                in a crash. An indeterminate (info) transaction that some read
//                observed committed, so all of its appends must then be visible, from
//                the time its outcome became unknown.
import type { Anomaly } from './history.js'
import { show, type ExternalRead } from './external-reads.js'
import type { Writer } from './writers.js'

export function lostUpdates(reads: ExternalRead[]): Anomaly[] {
  const byVersion = new Map<string, { key: number; version: number[]; txns: Set<number> }>()
  for (const { txn, key, prefix } of reads) {
    if (!txn.ops.some((op) => op.f === 'append' && op.key === key)) continue
    const id = `${key}:${prefix.at(-1) ?? 'initial'}`
    let entry = byVersion.get(id)
    if (entry === undefined) byVersion.set(id, (entry = { key, version: prefix, txns: new Set() }))
    entry.txns.add(txn.id)
  }
  const anomalies: Anomaly[] = []
  for (const { key, version, txns } of byVersion.values()) {
    if (txns.size < 2) continue
    const ids = [...txns]
    anomalies.push({
      class: 'lost-update',
      explanation: `${ids.map((id) => `T${id}`).join(', ')} all read key ${key} as ${show(version)} and all appended to it, and all committed`,
      txns: ids,
    })
  }
  return anomalies
}

export function lostAppends(reads: ExternalRead[], writers: Map<number, Writer>, committed: ReadonlySet<number>): Anomaly[] {
  const appendsByKey = new Map<number, Writer[]>()
  for (const writer of writers.values()) {
    if (committed.has(writer.txn.id)) appendsByKey.set(writer.key, [...(appendsByKey.get(writer.key) ?? []), writer])
  }
  // The earliest read that misses each value, so a value lost once is reported once.
  const missing = new Map<number, { reader: ExternalRead; writer: Writer }>()
  for (const read of [...reads].sort((a, b) => a.txn.invoke - b.txn.invoke)) {
    const seen = new Set(read.full)
    for (const writer of appendsByKey.get(read.key) ?? []) {
      if (writer.txn === read.txn || writer.txn.complete >= read.txn.invoke || seen.has(writer.value) || missing.has(writer.value)) continue
      missing.set(writer.value, { reader: read, writer })
    }
  }
  return [...missing].map(([value, { reader, writer }]) => ({
    class: 'lost-append' as const,
    explanation: `T${writer.txn.id} (${writer.txn.type}) appended ${value} to key ${reader.key}, but T${reader.txn.id}, begun after it ended, read ${show(reader.full)}`,
    txns: [writer.txn.id, reader.txn.id],
  }))
}
