// What a worker thread tells the opening thread for its trends (docs/api.md,
// "Trends"): the durations of the query requests it answered and how many tail
// consumers read on it, a few times a second. Its metrics go on request instead (a
// scrape asks every thread, so the figures it shows are current).
import type { ServerMetrics } from '../metrics/index.js'
import { thread_trends_report_ms } from '../../limits.js'
import type { OpenerLink } from './opener-link.js'

/** Starts reporting; returns the function that stops it (and sends what is left). */
export function reportTrends(metrics: ServerMetrics, link: OpenerLink): () => void {
  let durations: number[] = []
  let readers = 0
  metrics.onQuery = (ms) => { durations.push(ms) }
  const report = () => {
    if (durations.length === 0 && readers === metrics.tailReaders) return
    readers = metrics.tailReaders
    link.send({ kind: 'trends', durations_ms: durations, tail_readers: readers })
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
