// Token entry: the service token, or a tenant token (which opens its tenants only). The
// token and the API base are kept in sessionStorage; a token is accepted only once the
// server has answered /access with it (what it opens), so a typo is caught here rather
// than on the first page.
import { isAnswered, TenantdbError } from '../api/client.js'
import type { Context, Page } from '../context.js'
import { normaliseBase, ownOrigin } from '../state/settings.js'
import { h } from '../ui/dom.js'

/** Why the connect page is shown, when it is not the first visit (e.g. a 401 elsewhere). */
let pending_notice: string | null = null

export function noticeOnConnect(message: string): void {
  pending_notice = message
}

export function connectPage(ctx: Context): Page {
  const params = new URLSearchParams(window.location.search)
  const base = h('input#api-base', { name: 'api-base', value: params.get('api') ?? ctx.settings.apiBase, autocomplete: 'url', spellcheck: 'false', required: true })
  const token = h('input#token', { name: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'paste the service token or a tenant token' })
  const message = h('div.connect-message', { role: 'alert' })
  const submit = h('button.button.primary.wide', { type: 'submit' }, 'Connect')
  const show = (text: string | null) => {
    message.replaceChildren(text ?? '')
    message.classList.toggle('visible', text !== null)
  }
  show(pending_notice)
  pending_notice = null

  const form = h('form.connect-form', null,
    h('div.field', null, h('label', { for: 'api-base' }, 'API base'), base,
      h('p.help', null, `Where tenantdb serves /api/v1. This page's own origin (${ownOrigin()}) when the console is served by the server.`)),
    h('div.field', null, h('label', { for: 'token' }, 'Token'), token,
      h('p.help', null, 'The service token (printed by ', h('code', null, 'tenantdb serve'), ' at start, or in ', h('code', null, '<dir>/service.token'),
        ') opens everything; a tenant token (', h('code', null, 'tdb_…'), ') opens its tenant only. Kept in this tab only (sessionStorage).')),
    message,
    submit,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void connect()
  })

  async function connect(): Promise<void> {
    let apiBase: string
    try {
      apiBase = normaliseBase(base.value)
    } catch {
      show('The API base must be a URL such as http://127.0.0.1:7070.')
      return
    }
    submit.disabled = true
    show(null)
    const previous = { base: ctx.settings.apiBase, token: ctx.settings.token }
    ctx.settings.save(apiBase, token.value.trim())
    try {
      const access = await ctx.api.access()
      ctx.access.set(access)
      ctx.navigate(access.credential === 'service' ? '#/overview' : '#/tenants')
    } catch (error) {
      if (previous.token === null) ctx.settings.forgetToken()
      else ctx.settings.save(previous.base, previous.token)
      if (isAnswered(error) && error.status === 401) show(`The server refused this token (401 unauthorized): ${error.message}. Check the token printed at start or in service.token, or ask for a current tenant token.`)
      else if (isAnswered(error) && error.status === 429) show('Too many failed attempts from this address (429). Wait a minute and try again.')
      else if (error instanceof TenantdbError && error.status === undefined) show(`${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`)
      else show(error instanceof Error ? error.message : String(error))
      submit.disabled = false
    }
  }

  const element = h('div.connect', null,
    h('div.connect-card', null,
      h('h1', null, 'Connect to tenantdb'),
      h('p.page-subtitle', null, 'The console talks to the HTTP API with your token, and shows what it opens.'),
      form,
    ),
  )
  queueMicrotask(() => (ctx.settings.token === null ? token : base).focus())
  return { element }
}
