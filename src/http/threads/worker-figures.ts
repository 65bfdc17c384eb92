// What a worker thread tells the opening thread for its trends (docs/api.md,
// "Trends"): the durations of the query requests it answered and how many tail
// consumers read on it, a few times a second; and with them what each tenant's
// statements used on it, which the opening thread adds to its own (its usage route,
// metrics and health detail show every thread's). Its request metrics go on request
// instead (a scrape asks every thread, so the figures it shows are current).
import type { Database } from '../../database/index.js'
import type { ServerMetrics } from '../metrics/index.js'
import { thread_trends_report_ms } from '../../limits.js'
import type { OpenerLink } from './opener-link.js'

/** Starts reporting; returns the function that stops it (and sends what is left). */
export function reportTrends(metrics: ServerMetrics, db: Database, link: OpenerLink): () => void {
  let durations: number[] = []
  let readers = 0
  metrics.onQuery = (ms) => { durations.push(ms) }
  const report = () => {
    const usage = db.drainUsage()
    if (durations.length === 0 && readers === metrics.tailReaders && usage.length === 0) return
    readers = metrics.tailReaders
    link.send({ kind: 'trends', durations_ms: durations, tail_readers: readers, usage })
    durations = []
  }
  const timer = setInterval(report, thread_trends_report_ms)
  timer.unref()
  return () => {
    clearInterval(timer)
    metrics.onQuery = null
    report()
  }
}
