// The overview's trends: the server's one-second samples (GET /api/v1/trends, the last
// 20 minutes) as time-series charts that move as new seconds arrive. The first fetch
// takes the whole ring; every later one asks only for the seconds after the last it has.
import type { ApiClient } from '../api/client.js'
import type { Trends } from '../api/types.js'
import { h } from '../ui/dom.js'
import { bytes, count, micros } from '../ui/format.js'
import { panel } from '../ui/panel.js'
import { trendChart, type TrendChart } from '../ui/trend-chart.js'

const blue = '#6ea8fe'
const green = '#4cc38a'
const amber = '#e3b341'
const red = '#f0686a'
const violet = '#c792ea'

const perSecond = (v: number) => `${count(v)}/s`
const ms = (v: number) => (v < 10 ? `${Math.round(v * 100) / 100} ms` : `${count(v)} ms`)

export interface TrendsPanel {
  element: HTMLElement
  /** Fetches what is new and redraws; throws what the API throws. */
  refresh(): Promise<void>
  dispose(): void
}

export function trendsPanel(api: ApiClient): TrendsPanel {
  const charts: TrendChart[] = [
    trendChart('Commits and rows written', [
      { key: 'commits', label: 'commits', colour: blue, format: perSecond },
      { key: 'rows_written', label: 'rows', colour: green, format: perSecond },
      { key: 'conflicts', label: 'conflicts', colour: red, format: perSecond },
    ], undefined, { integer: true }),
    trendChart('Queries', [
      { key: 'query_p50_ms', label: 'p50', colour: blue, format: ms },
      { key: 'query_p99_ms', label: 'p99', colour: amber, format: ms },
    ], 'latency of the query route'),
    trendChart('fsync latency', [
      { key: 'fsync_p50_us', label: 'p50 ≤', colour: blue, format: micros },
      { key: 'fsync_p99_us', label: 'p99 ≤', colour: amber, format: micros },
    ], 'bucket bounds, per second'),
    trendChart('Write-ahead log', [
      { key: 'wal_bytes', label: 'size', colour: blue, format: bytes },
      { key: 'wal_lag_bytes', label: 'after checkpoint', colour: amber, format: bytes },
    ]),
    trendChart('Node reads', [
      { key: 'cache_hits', label: 'cache hits', colour: green, format: perSecond },
      { key: 'cache_misses', label: 'misses', colour: red, format: perSecond },
      { key: 'memory_reads', label: 'in memory', colour: violet, format: perSecond },
    ], 'in memory: written since the last checkpoint', { integer: true }),
    trendChart('Page file', [
      { key: 'page_file_bytes', label: 'size', colour: blue, format: bytes },
    ]),
    trendChart('Free slots and tail', [
      { key: 'free_pages', label: 'free slots', colour: green, format: count },
      { key: 'tail_subscribers', label: 'tail readers', colour: violet, format: count },
      { key: 'checkpoints', label: 'checkpoints', colour: amber, format: count },
    ], undefined, { integer: true }),
    trendChart('Queries per second', [
      { key: 'queries', label: 'queries', colour: blue, format: perSecond },
      { key: 'fsyncs', label: 'fsyncs', colour: amber, format: perSecond },
    ], undefined, { integer: true }),
  ]
  const status = h('span.panel-subtitle')
  const element = panel('Trends', h('div.trends', null, charts.map((c) => c.element)), {
    className: 'span-2 trends-panel',
    subtitle: 'one sample a second, the last 20 minutes, kept by the server in memory',
    actions: status,
  })
  let columns: Trends['series'] | null = null
  let capacity = 0

  return {
    element,
    async refresh() {
      const last = columns?.t?.[columns.t.length - 1] ?? undefined
      const answer = await api.trends(last === null ? undefined : last)
      capacity = answer.capacity
      if (columns === null) columns = answer.series
      else {
        for (const [figure, values] of Object.entries(answer.series)) {
          const column = (columns[figure] ??= [])
          column.push(...values)
          if (column.length > capacity) column.splice(0, column.length - capacity)
        }
      }
      const samples = columns.t?.length ?? 0
      status.textContent = `${count(samples)} second${samples === 1 ? '' : 's'}`
      element.dataset.samples = String(samples)
      for (const chart of charts) chart.update(columns)
    },
    dispose() {
      for (const chart of charts) chart.destroy()
    },
  }
}
