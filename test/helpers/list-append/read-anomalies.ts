// Anomalies a single read shows, without any cycle: it saw a value a failed
// transaction appended (G1a, aborted read), a value nobody appended (garbage), or a
// list ending at a value its writer appended over later in the same transaction (G1b,
// intermediate read: the writer's final state of the key ends with its last append).
import type { Anomaly } from './history.js'
import { show, type ExternalRead } from './external-reads.js'
import type { Writer } from './writers.js'

export function readAnomalies(reads: ExternalRead[], writers: Map<number, Writer>): Anomaly[] {
  const anomalies: Anomaly[] = []
  for (const { txn, key, full, prefix } of reads) {
    for (const value of full) {
      const writer = writers.get(value)
      if (writer === undefined) {
        anomalies.push({ class: 'garbage-read', explanation: `T${txn.id} read key ${key} as ${show(full)}: no transaction appended ${value}`, txns: [txn.id] })
      } else if (writer.key !== key) {
        anomalies.push({ class: 'garbage-read', explanation: `T${txn.id} read key ${key} as ${show(full)}: ${value} was appended to key ${writer.key} (by T${writer.txn.id})`, txns: [txn.id, writer.txn.id] })
      } else if (writer.txn.type === 'fail') {
        anomalies.push({ class: 'G1a', explanation: `T${txn.id} read key ${key} as ${show(full)}: ${value} was appended by T${writer.txn.id}, which failed`, txns: [writer.txn.id, txn.id] })
      }
    }
    const lastSeen = prefix.at(-1)
    const writer = lastSeen === undefined ? undefined : writers.get(lastSeen)
    if (writer !== undefined && writer.key === key && !writer.last && writer.txn !== txn) {
      anomalies.push({
        class: 'G1b',
        explanation: `T${txn.id} read key ${key} as ${show(full)}, ending at ${lastSeen}, which T${writer.txn.id} appended before appending to key ${key} again`,
        txns: [writer.txn.id, txn.id],
      })
    }
  }
  return anomalies
}
