// One time-series chart of the trend ring, drawn by uPlot (bundled, no network): a
// few series over the same seconds, a legend that reads the values under the cursor,
// and the chart resized with its panel. update() redraws with new columns.
import uPlot from 'uplot'
import { h } from './dom.js'

export interface TrendSeries {
  /** The figure's name in GET /api/v1/trends. */
  key: string
  label: string
  colour: string
  /** How a value reads in the legend and on the axis. */
  format: (value: number) => string
}

/** Whole-number steps for the y axis of counts (no "0.5 checkpoints"). */
const integer_steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 1e8, 1e9]

export interface TrendChart {
  element: HTMLElement
  update(series: Record<string, Array<number | null>>): void
  destroy(): void
}

const height_px = 170

export function trendChart(title: string, series: readonly TrendSeries[], note?: string, options_: { integer?: boolean } = {}): TrendChart {
  const host = h('div.trend-plot')
  const element = h('figure.trend', { dataset: { trend: series.map((s) => s.key).join(' ') } },
    h('figcaption', null, h('span.trend-title', null, title), note === undefined ? null : h('span.trend-note', null, note)),
    host)
  const format = series[0]?.format ?? String
  const options: uPlot.Options = {
    width: 400,
    height: height_px,
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max <= 0 ? 1 : max * 1.1] } },
    axes: [
      { stroke: '#8c96a4', grid: { stroke: '#252c36', width: 1 }, ticks: { stroke: '#343d4a', width: 1 }, font: '11px system-ui, sans-serif' },
      { stroke: '#8c96a4', grid: { stroke: '#252c36', width: 1 }, ticks: { stroke: '#343d4a', width: 1 }, font: '11px system-ui, sans-serif', size: 76, values: (_u, values) => values.map((v) => format(v)), ...(options_.integer === true ? { incrs: integer_steps } : {}) },
    ],
    series: [
      {},
      ...series.map((s) => ({ label: s.label, stroke: s.colour, width: 1.5, fill: `${s.colour}1f`, points: { show: false }, spanGaps: false, value: (_u: uPlot, v: number | null) => (v === null ? '—' : s.format(v)) })),
    ],
  }
  let plot: uPlot | null = null
  let data: uPlot.AlignedData = [[], ...series.map(() => [])]
  // The legend shows the values under the cursor, and the newest ones otherwise.
  const showLatest = () => { if (plot !== null && data[0].length > 0) plot.setLegend({ idx: data[0].length - 1 }) }
  const resize = new ResizeObserver(() => {
    const width = Math.max(200, Math.floor(host.clientWidth))
    if (plot === null) {
      plot = new uPlot({ ...options, width }, data, host)
      showLatest()
    } else plot.setSize({ width, height: height_px })
  })
  resize.observe(host)
  host.addEventListener('mouseleave', () => setTimeout(showLatest, 0))
  return {
    element,
    update(columns) {
      data = [columns.t ?? [], ...series.map((s) => columns[s.key] ?? [])] as uPlot.AlignedData
      element.dataset.samples = String(data[0].length)
      // The last value of the first series, for whoever reads the chart as text (tests, screen readers).
      const last = series.map((s) => columns[s.key]?.[columns[s.key]!.length - 1])
      element.setAttribute('aria-label', `${title}: ${series.map((s, i) => `${s.label} ${last[i] === null || last[i] === undefined ? '—' : s.format(last[i] as number)}`).join(', ')}`)
      plot?.setData(data)
      showLatest()
    },
    destroy() {
      resize.disconnect()
      plot?.destroy()
    },
  }
}
