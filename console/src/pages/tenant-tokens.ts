// A tenant's tokens on the Tenants page (docs/operations.md, "Tenant tokens"), shown
// only to the service token: every token that opens the tenant (id, name, scope,
// issued for, created, expires, last use; never a secret), issuing one (its scope, a
// name, when it expires) and revoking one. Both change access, so both are write-mode
// buttons; a new token is shown once, in a dialog, and never again.
import { describeError } from '../api/client.js'
import type { IssueTokenRequest, TokenEntry, TokenScope } from '../api/types.js'
import type { Context } from '../context.js'
import { scope_help } from '../state/access.js'
import { openDialog } from '../ui/dialog.js'
import { h } from '../ui/dom.js'
import { timestamp } from '../ui/format.js'
import { badge, errorBox, panel } from '../ui/panel.js'
import { table } from '../ui/table.js'
import { toast } from '../ui/toast.js'
import type { WriteButtons } from '../ui/write-button.js'

/** Lifetimes offered when issuing, in seconds ('' never expires). */
const lifetimes: Array<[string, string]> = [
  ['', 'never'],
  ['3600', '1 hour'],
  ['86400', '1 day'],
  ['2592000', '30 days'],
  ['31536000', '1 year'],
]

export function tokensPanel(ctx: Context, tenant: string, tokens: unknown, buttons: WriteButtons, reload: () => Promise<void>): HTMLElement {
  const issue = buttons.button({ label: 'Issue token…', small: true, onClick: async () => {
    if (await issueToken(ctx, tenant)) await reload()
  } })
  const body = !Array.isArray(tokens)
    ? errorBox(`Cannot list tokens: ${describeError(tokens)}`)
    : table<TokenEntry>([
      { label: 'Token', cell: (x) => h('div', { title: `created ${timestamp(x.created_at)}` },
        h('code', null, x.id),
        x.name === null ? null : h('div.muted', null, x.name),
        // A fork lists the admin token that made it, issued for the tenant it forked.
        x.tenant === tenant ? null : h('div.muted', null, `issued for ${x.tenant}`)) },
      { label: 'Scope', cell: (x) => badge(x.scope, x.scope === 'admin' ? 'warn' : x.scope === 'write' ? 'accent' : 'neutral') },
      { label: 'Expires', cell: (x) => (x.expires_at === null ? h('span.muted', null, 'never') : h('span.nowrap', null, timestamp(x.expires_at))) },
      { label: 'Last used', cell: (x) => (x.last_used_at === null ? h('span.muted', null, 'never') : h('span.nowrap', null, timestamp(x.last_used_at))) },
      { label: '', cell: (x) => h('div.row-actions', null, buttons.button({ label: 'Revoke…', small: true, danger: true, onClick: async () => {
        if (await revokeToken(ctx, tenant, x)) await reload()
      } })) },
    ], tokens as TokenEntry[], { empty: 'No token opens this tenant but the service token. Issue one with Issue token… (write mode).', rowAttributes: (x) => ({ dataset: { token: x.id } }) })
  return panel('Tokens', body, { subtitle: 'credentials that open this tenant only; only their hashes are stored', actions: issue, className: 'tokens' })
}

async function issueToken(ctx: Context, tenant: string): Promise<boolean> {
  const values = await openDialog({
    title: `Issue a token for ${tenant}`,
    body: 'A token that opens this tenant only. It is shown once, when issued: store it then.',
    fields: [
      { name: 'scope', label: 'Scope', value: 'read', options: (['read', 'write', 'admin'] as TokenScope[]).map((s): [string, string] => [s, `${s}: ${scope_help[s]}`]) },
      { name: 'name', label: 'Name', placeholder: `${tenant} web app`, help: 'A label for the list, e.g. the application that holds it (optional).', optional: true },
      { name: 'expires', label: 'Expires in', value: '', options: lifetimes },
    ],
    confirmLabel: 'Issue token',
  })
  if (values === null) return false
  const request: IssueTokenRequest = { scope: (values.scope ?? 'read') as TokenScope }
  if (values.name !== undefined && values.name !== '') request.name = values.name
  if (values.expires !== undefined && values.expires !== '') request.expires_in_s = Number(values.expires)
  let issued
  try {
    issued = await ctx.api.issueToken(tenant, request)
  } catch (error) {
    toast(`issue failed: ${describeError(error)}`, 'error')
    return false
  }
  const field = h('input#issued-token', { value: issued.token, readonly: true, spellcheck: 'false', autocomplete: 'off', onfocus: (event: Event) => (event.target as HTMLInputElement).select() })
  await openDialog({
    title: `${issued.scope} token for ${tenant}`,
    body: h('div', null,
      h('p', null, 'Copy it now: it is not shown again (the server keeps only its hash). It opens ', h('code', null, tenant), ` with the ${issued.scope} scope${issued.expires_at === null ? '' : ` until ${timestamp(issued.expires_at)}`}.`),
      h('div.field', null, h('label', { for: 'issued-token' }, `Token ${issued.id}`), field),
    ),
    confirmLabel: 'Done',
  })
  return true
}

async function revokeToken(ctx: Context, tenant: string, token: TokenEntry): Promise<boolean> {
  const values = await openDialog({
    title: `Revoke token ${token.id}?`,
    body: h('p', null, 'The token ', token.name === null ? '' : `"${token.name}" `, `(${token.scope}) is refused from the next request on, and the change tails it holds close. This cannot be undone: issue a new token to grant access again.`),
    confirmLabel: 'Revoke token',
    danger: true,
  })
  if (values === null) return false
  try {
    const result = await ctx.api.revokeToken(tenant, token.id)
    toast(result.message, 'ok')
  } catch (error) {
    toast(`revoke failed: ${describeError(error)}`, 'error')
  }
  return true
}
