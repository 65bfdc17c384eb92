// The console's building blocks of a page: a titled panel, key-value lists, badges
// and stat tiles, so every page spaces and labels things the same way.
import { h } from './dom.js'

type Content = Node | string | null | false | Array<Node | string | null | false>

export function panel(title: string, content: Content, options: { actions?: Content; className?: string; subtitle?: string } = {}): HTMLElement {
  return h('section.panel', { class: options.className ?? null },
    h('header.panel-head', null,
      h('div.panel-titles', null, h('h2', null, title), options.subtitle === undefined ? null : h('span.panel-subtitle', null, options.subtitle)),
      options.actions === undefined ? null : h('div.panel-actions', null, options.actions),
    ),
    h('div.panel-body', null, content),
  )
}

/** Label/value rows; values that are numbers line up on the right. */
export function keyValues(rows: Array<[label: string, value: Node | string, numeric?: boolean]>): HTMLElement {
  return h('dl.kv', null, rows.map(([label, value, numeric]) => [
    h('dt', null, label),
    h('dd', { class: numeric === true ? 'num' : null }, value),
  ]))
}

export type Tone = 'ok' | 'warn' | 'danger' | 'neutral' | 'accent'

export function badge(text: string, tone: Tone = 'neutral'): HTMLElement {
  return h(`span.badge.${tone}`, null, text)
}

export function tile(label: string, value: string, options: { tone?: Tone; note?: string } = {}): HTMLElement {
  return h(`div.tile.${options.tone ?? 'neutral'}`, null,
    h('div.tile-label', null, label),
    h('div.tile-value', null, value),
    options.note === undefined ? null : h('div.tile-note', null, options.note),
  )
}

/** A page's title row: heading, a line of context, and controls on the right. */
export function pageHeader(title: string, subtitle: Content, controls?: Content): HTMLElement {
  return h('div.page-head', null,
    h('div', null, h('h1', null, title), h('p.page-subtitle', null, subtitle)),
    controls === undefined ? null : h('div.page-controls', null, controls),
  )
}

export function errorBox(message: string): HTMLElement {
  return h('div.callout.danger', { role: 'alert' }, message)
}
