// The snapshot-isolation checker for list-append histories: every part in one pass.
// See history.ts for the classes it reports, and classify-cycles.ts for why G2 (write
// skew) is allowed and only listed.
import type { CheckResult, History } from './history.js'
import { cycleAnomalies } from './classify-cycles.js'
import { inferDependencies } from './dependency-graph.js'
import { externalReads } from './external-reads.js'
import { lostAppends, lostUpdates } from './lost-updates.js'
import { readAnomalies } from './read-anomalies.js'
import { versionOrders } from './version-orders.js'
import { committedTxns, indexWriters } from './writers.js'

export function checkHistory(history: History): CheckResult {
  const writers = indexWriters(history)
  const { reads, anomalies: internal } = externalReads(history)
  const committed = committedTxns(history, reads.flatMap((read) => read.full), writers)
  const { orders, anomalies: orderAnomalies } = versionOrders(reads)
  const graph = inferDependencies(reads, orders, writers, committed)
  const cycles = cycleAnomalies(graph)
  const anomalies = [
    ...internal,
    ...orderAnomalies,
    ...readAnomalies(reads, writers),
    ...lostUpdates(reads),
    ...lostAppends(reads, writers, committed),
    ...cycles.anomalies,
  ]
  const count = (type: string) => history.filter((txn) => txn.type === type).length
  return {
    valid: anomalies.length === 0,
    anomalies,
    allowed: cycles.allowed,
    stats: { ok: count('ok'), fail: count('fail'), info: count('info'), edges: { ...graph.counts } },
  }
}
