// What a link to something that does not exist shows: which thing, by which name,
// and where to go instead. Never a silent fall back to something else.
import { h } from './dom.js'

export function notFound(what: string, name: string, back: { href: string; label: string }, detail?: string): HTMLElement {
  return h('div.not-found', { role: 'alert', dataset: { notFound: what } },
    h('div.not-found-title', null, `No ${what} named `, h('code', null, name)),
    h('p', null, detail ?? `Nothing by that name exists on this server. It may have been deleted, or the link may be mistyped.`),
    h('p', null, h('a.button.small', { href: back.href }, back.label)),
  )
}
