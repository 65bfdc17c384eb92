// One horizontal bar split into parts by share (the page file's slots by state), with
// a legend that carries the numbers: the bar gives the proportions at a glance, the
// legend the exact counts, so no text has to fit inside a thin segment.
import { h } from './dom.js'
import { count, percent } from './format.js'

export interface Part {
  /** Names the part in the DOM (data-part) and picks its colour (.part-<key>). */
  key: string
  label: string
  value: number
  /** What the part is, as the legend entry's tooltip. */
  about?: string
}

/** The bar and its legend; a part of zero is left out of the bar but stays in the legend. */
export function stackedBar(parts: readonly Part[], options: { label: string; unit: string; empty: string }): HTMLElement {
  const total = parts.reduce((sum, p) => sum + p.value, 0)
  const describe = (p: Part) => `${p.label}: ${count(p.value)} ${options.unit} (${percent(p.value, total)})`
  const bar = h('div.stacked-bar', { role: 'img', 'aria-label': `${options.label}: ${parts.map(describe).join(', ')}` },
    parts.filter((p) => p.value > 0).map((p) => h(`span.segment.part-${p.key}`, {
      title: describe(p),
      dataset: { part: p.key },
      // Grow by the count itself; a sliver keeps a minimum width (in CSS) so it shows.
      style: { 'flex-grow': String(p.value) },
    })),
  )
  return h('div.stacked', null,
    bar,
    total === 0 ? h('p.empty.stacked-empty', null, options.empty) : null,
    h('ul.legend', null, parts.map((p) => h('li.legend-item', { dataset: { part: p.key }, title: p.about ?? null },
      h(`span.swatch.part-${p.key}`, { 'aria-hidden': 'true' }),
      h('span.legend-label', null, p.label),
      h('span.legend-value', null, count(p.value)),
      h('span.legend-share', null, percent(p.value, total)),
    ))),
  )
}
