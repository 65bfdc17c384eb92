// The bar across the top: the product, the pages, and on the right the write-mode
// switch and where the console is connected.
import type { Access } from '../api/types.js'
import type { Context } from '../context.js'
import { accessLabel, isService } from '../state/access.js'
import { h } from './dom.js'

export const nav_pages: Array<[route: string, label: string]> = [
  ['overview', 'Overview'],
  ['tenants', 'Tenants'],
  ['data', 'Data'],
  ['schema', 'Schema'],
  ['query', 'Query'],
  ['tail', 'Tail'],
  ['diff', 'Diff'],
]

export interface NavBar {
  element: HTMLElement
  setActive(route: string | null): void
  /** Where the console is connected, with what: a tenant token hides the server-wide Overview. */
  setConnected(label: string | null, access: Access | null): void
}

export function navBar(ctx: Context, onSignOut: () => void): NavBar {
  const links = new Map(nav_pages.map(([route, label]) => [route, h('a.nav-link', { href: `#/${route}` }, label)]))
  const toggle = h('input#write-mode', { type: 'checkbox', role: 'switch', checked: ctx.writeMode.value, onchange: (event: Event) => ctx.writeMode.set((event.target as HTMLInputElement).checked) })
  ctx.writeMode.subscribe((on) => {
    toggle.checked = on
    document.body.classList.toggle('write-mode', on)
  })
  const connection = h('span.connection', { title: 'API base' })
  const credential = h('span.credential')
  const signOut = h('button.button.ghost.small', { type: 'button', onclick: onSignOut }, 'Sign out')
  const right = h('div.nav-right', null,
    h('label.switch', { for: 'write-mode', title: 'Tenant operations are disabled until write mode is on' },
      toggle, h('span.switch-track', { 'aria-hidden': 'true' }), h('span.switch-label', null, 'Write mode')),
    connection,
    credential,
    signOut,
  )
  const element = h('header.topbar', null,
    h('a.brand', { href: '#/overview' }, h('span.brand-mark', { 'aria-hidden': 'true' }), h('span.brand-name', null, 'tenantdb'), h('span.brand-sub', null, 'console')),
    h('nav.nav', { 'aria-label': 'Pages' }, [...links.values()]),
    right,
  )
  return {
    element,
    setActive(route) {
      for (const [name, link] of links) link.classList.toggle('active', name === route)
    },
    setConnected(label, access) {
      right.hidden = label === null
      element.querySelector('nav')?.toggleAttribute('hidden', label === null)
      connection.replaceChildren(label === null ? '' : h('span.dot', { 'aria-hidden': 'true' }), label ?? '')
      credential.textContent = accessLabel(access)
      credential.dataset.credential = access?.credential ?? ''
      links.get('overview')?.toggleAttribute('hidden', label !== null && !isService(access))
    },
  }
}
