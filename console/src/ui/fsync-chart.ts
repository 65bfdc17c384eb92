// The fsync latency histogram as bars, drawn as SVG. Buckets are the engine's
// (crates/storage/src/database/histogram.rs): each counts syncs that took at most `le_micros`,
// the last one everything slower. The x axis is the buckets in order (so already
// logarithmic in time); the y axis is linear in count, with the count over each bar.
import type { FsyncBucket } from '../api/types.js'
import { count, micros } from './format.js'
import { svg } from './dom.js'

const width = 720
const height = 240
const margin = { top: 24, right: 12, bottom: 36, left: 48 }

/** "≤ 250 µs" as an axis label: short, unit by magnitude. */
export function bucketLabel(bucket: FsyncBucket, previous: FsyncBucket | undefined): string {
  if (bucket.le_micros === null) return `> ${micros(previous?.le_micros ?? 0)}`
  return micros(bucket.le_micros)
}

/** The upper bound of the bucket holding quantile q (0..1), or null when there are no syncs. */
export function quantileBound(buckets: readonly FsyncBucket[], q: number): FsyncBucket | null {
  const total = buckets.reduce((sum, b) => sum + b.count, 0)
  if (total === 0) return null
  let seen = 0
  for (const bucket of buckets) {
    seen += bucket.count
    if (seen >= q * total) return bucket
  }
  return buckets[buckets.length - 1] ?? null
}

/** Slow syncs stand out: 10 ms and more is amber, 100 ms and more red. */
function tone(bucket: FsyncBucket): string {
  const bound = bucket.le_micros ?? Number.POSITIVE_INFINITY
  if (bound > 100_000) return 'bar-danger'
  if (bound > 10_000) return 'bar-warn'
  return 'bar'
}

export function fsyncChart(buckets: readonly FsyncBucket[]): SVGSVGElement {
  const plotWidth = width - margin.left - margin.right
  const plotHeight = height - margin.top - margin.bottom
  const peak = Math.max(1, ...buckets.map((b) => b.count))
  const top = niceCeiling(Math.max(2, peak))
  const slot = plotWidth / Math.max(1, buckets.length)
  const barWidth = Math.max(4, slot * 0.68)
  const y = (value: number) => margin.top + plotHeight - (value / top) * plotHeight

  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': 'fsync latency histogram' })
  for (const tick of [0, top / 2, top]) {
    chart.append(
      svg('line', { x1: margin.left, x2: width - margin.right, y1: y(tick), y2: y(tick), class: tick === 0 ? 'axis' : 'grid' }),
      svg('text', { x: margin.left - 8, y: y(tick) + 4, class: 'tick', 'text-anchor': 'end' }, count(tick)),
    )
  }
  buckets.forEach((bucket, i) => {
    const x = margin.left + i * slot + (slot - barWidth) / 2
    const barTop = y(bucket.count)
    const label = bucketLabel(bucket, buckets[i - 1])
    const bar = svg('rect', { x, y: barTop, width: barWidth, height: Math.max(0, margin.top + plotHeight - barTop), rx: 2, class: tone(bucket) })
    bar.append(svg('title', {}, `${label}: ${count(bucket.count)} syncs`))
    chart.append(bar)
    if (bucket.count > 0) chart.append(svg('text', { x: x + barWidth / 2, y: barTop - 6, class: 'bar-value', 'text-anchor': 'middle' }, count(bucket.count)))
    chart.append(svg('text', { x: x + barWidth / 2, y: height - margin.bottom + 18, class: 'tick', 'text-anchor': 'middle' }, label))
  })
  chart.append(svg('text', { x: margin.left + plotWidth / 2, y: height - 4, class: 'axis-title', 'text-anchor': 'middle' }, 'sync latency (at most)'))
  if (buckets.every((b) => b.count === 0)) {
    chart.append(svg('text', { x: margin.left + plotWidth / 2, y: margin.top + plotHeight / 4 + 4, class: 'chart-empty', 'text-anchor': 'middle' }, 'No durable sync yet this session: the first commit makes one.'))
  }
  return chart
}

/** The smallest 2, 4, 6, 8 or 10 × 10^n at or above `value`: round, with a whole half. */
function niceCeiling(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 4, 6, 8, 10]) if (step * magnitude >= value && (step * magnitude) % 2 === 0) return step * magnitude
  return 10 * magnitude
}
