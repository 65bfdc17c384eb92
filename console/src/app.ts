// The shell: top bar, one page at a time chosen by the URL hash (#/query…), and the
// shared state. Hash routes need nothing from the server but index.html, so the
// console works from any static host (--console-origin).
import { ApiClient, describeError, isAnswered, type AnsweredError } from './api/client.js'
import type { Access } from './api/types.js'
import type { Context, Page, PageFactory } from './context.js'
import { connectPage, noticeOnConnect } from './pages/connect.js'
import { dataPage } from './pages/data.js'
import { diffPage } from './pages/diff.js'
import { overviewPage } from './pages/overview.js'
import { queryPage } from './pages/query.js'
import { schemaPage } from './pages/schema.js'
import { tailPage } from './pages/tail.js'
import { tenantsPage } from './pages/tenants.js'
import { isService, openedTenants } from './state/access.js'
import { SchemaStore } from './state/schema-store.js'
import { Settings } from './state/settings.js'
import { Signal } from './state/signal.js'
import { h } from './ui/dom.js'
import { errorBox } from './ui/panel.js'
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
    access: new Signal<Access | null>(null),
    async refreshAccess() {
      ctx.access.set(await ctx.api.access())
    },
    signOut(notice) {
      // A page's other calls fail the same way a moment later; one notice is enough.
      if (route === 'connect') return
      route = 'connect'
      settings.forgetToken()
      ctx.access.set(null)
      ctx.writeMode.set(false)
      if (notice !== undefined) noticeOnConnect(notice)
      ctx.navigate('#/connect')
    },
    navigate(hash) {
      if (window.location.hash === hash) render()
      else window.location.hash = hash
    },
  }
  // A tenant token's pages work on its own tenants: `default` may be none of them.
  ctx.access.subscribe((access) => {
    const opened = openedTenants(access)
    if (opened !== null && !opened.includes(ctx.tenant.value) && opened[0] !== undefined) ctx.tenant.set(opened[0])
  })

  // A 401 anywhere but on the connect page means the token stopped working (revoked,
  // expired, or the server restarted with another one): forget it and ask again, saying why.
  function unauthorized(error: AnsweredError): void {
    ctx.signOut(`The server refused the token (${error.status} ${error.code}): ${error.message}. Enter a current token to continue.`)
  }

  const nav = navBar(ctx, () => ctx.signOut())
  const main = h('main.main')
  root.replaceChildren(nav.element, main)

  let current: Page | null = null
  function render(): void {
    const [name = '', ...args] = window.location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent)
    const signedIn = settings.token !== null
    if (signedIn && name !== 'connect' && ctx.access.value === null) {
      // Reloaded with a token in this tab: learn what it opens before showing a page.
      ctx.refreshAccess().then(render, (error: unknown) => {
        if (!(isAnswered(error) && error.status === 401)) main.replaceChildren(errorBox(`Cannot reach the server: ${describeError(error)}`))
      })
      return
    }
    // A tenant token has no server-wide page: it starts on its tenants.
    const home = isService(ctx.access.value) || !signedIn ? 'overview' : 'tenants'
    const allowed = (page: string) => page in pages && (page !== 'overview' || home === 'overview')
    route = !signedIn ? 'connect' : name === 'connect' ? 'connect' : name === '' ? home : allowed(name) ? name : name in pages ? home : 'unknown'
    if (signedIn && route !== name && route !== 'connect' && route !== 'unknown') {
      window.location.replace(`#/${home}`)
      return
    }
    current?.dispose?.()
    // Every page reads the schema afresh when it opens; pages share it while open.
    ctx.schemas.invalidate()
    current = route === 'connect' ? connectPage(ctx)
      : route === 'unknown' ? { element: h('div.page', null, notFound('page', name, { href: '#/overview', label: 'Overview' }, 'The console has no page by that name.')) }
      : (pages[route] as PageFactory)(ctx, args)
    nav.setActive(route)
    nav.setConnected(route === 'connect' ? null : new URL(settings.apiBase).host, ctx.access.value)
    document.title = `${route.charAt(0).toUpperCase()}${route.slice(1)} · tenantdb console`
    main.replaceChildren(current.element)
    main.dataset.page = route
  }
  window.addEventListener('hashchange', render)
  render()
}
