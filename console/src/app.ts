// The shell: top bar, one page at a time chosen by the URL hash (#/query…), and the
// shared state. Hash routes need nothing from the server but index.html, so the
// console works from any static host (--console-origin).
import { ApiClient, type ApiError } from './api/client.js'
import type { Context, Page, PageFactory } from './context.js'
import { connectPage, noticeOnConnect } from './pages/connect.js'
import { dataPage } from './pages/data.js'
import { diffPage } from './pages/diff.js'
import { overviewPage } from './pages/overview.js'
import { queryPage } from './pages/query.js'
import { schemaPage } from './pages/schema.js'
import { tailPage } from './pages/tail.js'
import { tenantsPage } from './pages/tenants.js'
import { SchemaStore } from './state/schema-store.js'
import { Settings } from './state/settings.js'
import { Signal } from './state/signal.js'
import { h } from './ui/dom.js'
import { navBar } from './ui/nav.js'
import { notFound } from './ui/not-found.js'

const pages: Record<string, PageFactory> = {
  overview: overviewPage,
  tenants: tenantsPage,
  data: dataPage,
  schema: schemaPage,
  query: queryPage,
  tail: tailPage,
  diff: diffPage,
}

export function startApp(root: HTMLElement): void {
  const settings = new Settings()
  let route = ''
  // The one place the token is read for API calls (state/settings.ts keeps it).
  const api = new ApiClient(() => ({ apiBase: settings.apiBase, token: settings.token }), unauthorized)
  const ctx: Context = {
    settings,
    api,
    schemas: new SchemaStore(api),
    writeMode: new Signal(false),
    tenant: new Signal('default'),
    navigate(hash) {
      if (window.location.hash === hash) render()
      else window.location.hash = hash
    },
  }

  // A 401 anywhere but on the connect page means the token stopped working (the
  // server restarted with another one): forget it and ask again, saying why.
  function unauthorized(error: ApiError): void {
    if (route === 'connect') return
    // A page's other calls fail the same way a moment later; one notice is enough.
    route = 'connect'
    settings.forgetToken()
    noticeOnConnect(`The server refused the token (${error.status} ${error.code}). Enter the current token to continue.`)
    ctx.navigate('#/connect')
  }

  const nav = navBar(ctx, () => {
    settings.forgetToken()
    ctx.writeMode.set(false)
    ctx.navigate('#/connect')
  })
  const main = h('main.main')
  root.replaceChildren(nav.element, main)

  let current: Page | null = null
  function render(): void {
    const [name = '', ...args] = window.location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent)
    const signedIn = settings.token !== null
    route = !signedIn ? 'connect' : name in pages ? name : name === 'connect' ? 'connect' : name === '' ? 'overview' : 'unknown'
    if (signedIn && route === 'overview' && name === '') {
      window.location.replace('#/overview')
      return
    }
    current?.dispose?.()
    // Every page reads the schema afresh when it opens; pages share it while open.
    ctx.schemas.invalidate()
    current = route === 'connect' ? connectPage(ctx)
      : route === 'unknown' ? { element: h('div.page', null, notFound('page', name, { href: '#/overview', label: 'Overview' }, 'The console has no page by that name.')) }
      : (pages[route] as PageFactory)(ctx, args)
    nav.setActive(route)
    nav.setConnected(route === 'connect' ? null : new URL(settings.apiBase).host)
    document.title = `${route.charAt(0).toUpperCase()}${route.slice(1)} · tenantdb console`
    main.replaceChildren(current.element)
    main.dataset.page = route
  }
  window.addEventListener('hashchange', render)
  render()
}
