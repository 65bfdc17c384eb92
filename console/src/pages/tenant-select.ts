// The tenant picker of the Query, Tail and Diff pages. It follows the shared tenant
// (choosing one on the Tenants page carries over) and lists the catalog afresh each
// time the page opens.
import type { Context } from '../context.js'
import { openedTenants } from '../state/access.js'
import { h } from '../ui/dom.js'

export interface TenantSelect {
  element: HTMLSelectElement
  dispose(): void
}

export function tenantSelect(ctx: Context): TenantSelect {
  const element = h('select#tenant', { 'aria-label': 'Tenant' }, h('option', { value: ctx.tenant.value }, ctx.tenant.value))
  element.addEventListener('change', () => ctx.tenant.set(element.value))
  const stop = ctx.tenant.subscribe((name) => { element.value = name })
  // A tenant token lists the tenants it opens; only the service token reads the catalog.
  const opened = openedTenants(ctx.access.value)
  if (opened !== null) {
    element.replaceChildren(...opened.map((name) => h('option', { value: name, selected: name === ctx.tenant.value }, name)))
    return { element, dispose: stop }
  }
  void ctx.api.tenants().then((tenants) => {
    const names = tenants.map((t) => t.name)
    // A tenant deleted elsewhere falls back to `default`, which always exists.
    if (!names.includes(ctx.tenant.value)) ctx.tenant.set('default')
    element.replaceChildren(...tenants.map((t) => h('option', { value: t.name, selected: t.name === ctx.tenant.value }, t.state === 'suspended' ? `${t.name} (suspended)` : t.name)))
  }, () => undefined)
  return { element, dispose: stop }
}
