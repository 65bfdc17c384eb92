// Who appended each value. Values are unique in a history (the workload makes them
// so), which is what lets a read name its writers; a history that breaks this is a bug
// of the workload, not an anomaly of the database, and is refused.
import type { History, Txn } from './history.js'

export interface Writer {
  txn: Txn
  key: number
  value: number
  /** Whether this is the writer's last append to `key` (a read ending elsewhere saw an intermediate state). */
  last: boolean
}

export function indexWriters(history: History): Map<number, Writer> {
  const writers = new Map<number, Writer>()
  for (const txn of history) {
    const lastOnKey = new Map<number, number>()
    for (const op of txn.ops) if (op.f === 'append') lastOnKey.set(op.key, op.value)
    for (const op of txn.ops) {
      if (op.f !== 'append') continue
      const earlier = writers.get(op.value)
      if (earlier !== undefined) throw new Error(`malformed history: value ${op.value} appended by both T${earlier.txn.id} and T${txn.id}`)
      writers.set(op.value, { txn, key: op.key, value: op.value, last: lastOnKey.get(op.key) === op.value })
    }
  }
  return writers
}

/**
 * The transactions that committed as far as the history shows: every ok one, and each
 * indeterminate (info) one some read observed. An info transaction nothing observed
 * may or may not have committed, and constrains nothing.
 */
export function committedTxns(history: History, observed: Iterable<number>, writers: Map<number, Writer>): Set<number> {
  const committed = new Set(history.filter((txn) => txn.type === 'ok').map((txn) => txn.id))
  for (const value of observed) {
    const writer = writers.get(value)
    if (writer?.txn.type === 'info') committed.add(writer.txn.id)
  }
  return committed
}
