// Tenants: the catalog on the left (state, parent, schema status), the chosen tenant on
// the right (its usage and limits, collections with row estimates, schema fingerprints,
// snapshots) with its operations. Operations are buttons that stay disabled until write mode is on.
// With a tenant token the list is the tenants it opens, and only the operations its
// scope allows are offered; the service token also sees and manages each tenant's
// tokens (tenant-tokens.ts).
import { describeError, TenantdbError } from '../api/client.js'
import type { CollectionEntry, SchemaStatus, SnapshotEntry, TenantEntry } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { administers, isService, openedTenants } from '../state/access.js'
import { h, replaceChildren } from '../ui/dom.js'
import { count, shortHash, timestamp } from '../ui/format.js'
import { badge, errorBox, keyValues, pageHeader, panel } from '../ui/panel.js'
import { notFound } from '../ui/not-found.js'
import { table } from '../ui/table.js'
import { writeButtons, type WriteButtons } from '../ui/write-button.js'
import { compactTenant, createTenant, deleteTenant, dropSnapshot, forkTenant, restoreTenant, resumeTenant, snapshotTenant, suspendTenant } from './tenant-ops.js'
import { tokensPanel } from './tenant-tokens.js'
import { usagePanel, type UsagePanel } from './tenant-usage.js'

/** A tenant as the list shows it: the catalog's entry (service token), or its name alone (a tenant token). */
type Listed = TenantEntry | { name: string; state?: undefined }

export function tenantsPage(ctx: Context, args: string[]): Page {
  const buttons = writeButtons(ctx.writeMode)
  const selected = args[0] ?? ctx.tenant.value
  const list = h('div.tenant-list')
  const detail = h('div.tenant-detail')
  const access = ctx.access.value
  const service = isService(access)
  const writeNote = h('div.callout.info.write-note', null, service
    ? 'Write mode is off: tenant operations are disabled. Switch it on in the top bar to create, fork, snapshot, suspend, resume, compact or delete, to drop a snapshot, or to issue and revoke tokens.'
    : 'Write mode is off: tenant operations are disabled. Switch it on in the top bar to snapshot, fork, suspend, resume or compact.')
  const stopNote = ctx.writeMode.subscribe((on) => { writeNote.hidden = on || !administers(access) })
  writeNote.hidden = ctx.writeMode.value || !administers(access)
  const scopeNote = access?.credential === 'tenant' && access.scope !== 'admin'
    ? h('div.callout.info.access-note', null, `This console holds a ${access.scope} token: it shows the tenants the token opens, and tenant operations need an admin token.`)
    : null

  const element = h('div.page', null,
    pageHeader('Tenants', service ? 'Every tenant in the catalog; choose one to see its collections, schema, snapshots and tokens.' : 'The tenants this token opens; choose one to see its collections, schema and snapshots.',
      service ? buttons.button({ label: 'Create tenant', primary: true, onClick: async () => {
        const name = await createTenant(ctx)
        if (name !== null) open(name)
        else await load()
      } }) : undefined),
    writeNote,
    scopeNote,
    h('div.split', null, list, detail),
  )

  /** Selects `name` (shared with the Query, Tail and Diff pages). */
  function open(name: string): void {
    ctx.tenant.set(name)
    ctx.navigate(`#/tenants/${encodeURIComponent(name)}`)
  }

  async function load(): Promise<void> {
    let tenants: Listed[]
    const opened = openedTenants(ctx.access.value)
    try {
      tenants = opened === null ? await ctx.api.tenants() : opened.map((name) => ({ name }))
    } catch (error) {
      replaceChildren(list, errorBox(`Cannot list tenants: ${describeError(error)}`))
      return
    }
    const current = tenants.find((t) => t.name === selected) ?? (args[0] === undefined ? tenants.find((t) => t.name === ctx.tenant.value) ?? tenants.find((t) => t.name === 'default') ?? tenants[0] : undefined)
    replaceChildren(list, opened === null
      ? panel('Catalog', tenantTable(tenants as TenantEntry[], current?.name, open), { subtitle: `${tenants.length} tenant${tenants.length === 1 ? '' : 's'}` })
      : panel('Opened by this token', openedTable(tenants, current?.name, open), { subtitle: `${tenants.length} tenant${tenants.length === 1 ? '' : 's'}` }))
    if (current === undefined && args[0] !== undefined) {
      // A link to a tenant that does not exist (or that the token does not open) says so; it never shows another one.
      replaceChildren(detail, notFound('tenant', args[0], opened === null ? { href: '#/tenants/default', label: 'Tenant default' } : { href: '#/tenants', label: 'Tenants' }))
    } else if (current !== undefined) {
      if (current.name !== ctx.tenant.value) ctx.tenant.set(current.name)
      await showTenant(ctx, detail, current, buttons, { reload: load, open, showing })
    }
  }
  let usage: UsagePanel | null = null
  function showing(next: UsagePanel): void {
    usage?.dispose()
    usage = next
  }
  void load()
  return {
    element,
    dispose() {
      buttons.dispose()
      stopNote()
      usage?.dispose()
    },
  }
}

function tenantTable(tenants: readonly TenantEntry[], selected: string | undefined, open: (name: string) => void): HTMLElement {
  return table<TenantEntry>([
    { label: 'Name', cell: (t) => h('a.tenant-link', { href: `#/tenants/${encodeURIComponent(t.name)}`, onclick: (event: Event) => { event.preventDefault(); open(t.name) } }, t.name) },
    { label: 'State', cell: (t) => badge(t.state, t.state === 'active' ? 'ok' : 'warn') },
    { label: 'Parent', cell: (t) => parentText(t) },
    { label: 'Schema', cell: (t) => (t.schema.pending ? badge('migration pending', 'warn') : h('code.hash', { title: t.schema.fingerprint }, shortHash(t.schema.fingerprint))) },
  ], tenants, { rowAttributes: (t) => ({ class: t.name === selected ? 'selected' : null, dataset: { tenant: t.name } }) })
}

/** A fork made from a snapshot compares with it (the fork point); one made from a head cannot. */
function forkDiffLink(t: TenantEntry): Node {
  if (t.parent?.snapshot === null || t.parent === null) return h('span.muted', { title: 'Forked from a head that no snapshot holds: fork from a snapshot (the Fork dialog keeps one) to compare later' }, 'fork point not kept')
  return h('a.fork-diff', { href: `#/diff/${encodeURIComponent(t.name)}/${encodeURIComponent(`${t.parent.tenant}@${t.parent.snapshot}`)}/head` }, 'Diff against parent at the fork point')
}

function openedTable(tenants: readonly Listed[], selected: string | undefined, open: (name: string) => void): HTMLElement {
  return table<Listed>([
    { label: 'Name', cell: (t) => h('a.tenant-link', { href: `#/tenants/${encodeURIComponent(t.name)}`, onclick: (event: Event) => { event.preventDefault(); open(t.name) } }, t.name) },
  ], tenants, { rowAttributes: (t) => ({ class: t.name === selected ? 'selected' : null, dataset: { tenant: t.name } }) })
}

function parentText(t: TenantEntry): Node | string {
  if (t.parent === null) return h('span.muted', null, '—')
  const source = t.parent.snapshot === null ? t.parent.tenant : `${t.parent.tenant}@${t.parent.snapshot}`
  return h('span.nowrap', { title: `forked at LSN ${count(t.parent.lsn)}` }, source, h('span.muted', null, ` · LSN ${count(t.parent.lsn)}`))
}

interface Navigation {
  reload(): Promise<void>
  open(name: string): void
  /** The usage panel shown now (it polls): the one it replaces, or leaving the page, stops. */
  showing(usage: UsagePanel): void
}

async function showTenant(ctx: Context, detail: HTMLElement, tenant: Listed, buttons: WriteButtons, nav: Navigation): Promise<void> {
  const name = tenant.name
  const access = ctx.access.value
  const service = isService(access)
  const [collections, schema, snapshots, tokens] = await Promise.all([
    ctx.api.collections(name).catch((error: unknown) => error),
    ctx.api.schema(name).catch((error: unknown) => error),
    ctx.api.snapshots(name).catch((error: unknown) => error),
    service ? ctx.api.tokens(name).catch((error: unknown) => error) : Promise.resolve(null),
  ])
  const snapshotList = Array.isArray(snapshots) ? (snapshots as SnapshotEntry[]) : []
  const after = (changed: boolean) => (changed ? nav.reload() : Promise.resolve())
  // A tenant token does not read the catalog: a suspended tenant shows in its collections' refusal.
  const suspended = tenant.state === 'suspended' || (collections instanceof TenantdbError && collections.code === 'tenant_suspended')
  const state = tenant.state ?? (suspended ? 'suspended' : 'active')

  const actions = !administers(access) ? h('div.actions') : h('div.actions', null,
    buttons.button({ label: 'Snapshot…', onClick: async () => after(await snapshotTenant(ctx, name)) }),
    buttons.button({ label: 'Fork…', onClick: async () => {
      const target = await forkTenant(ctx, name, snapshotList)
      if (target !== null) nav.open(target)
    } }),
    suspended
      ? buttons.button({ label: 'Resume', onClick: async () => after(await resumeTenant(ctx, name)) })
      : buttons.button({ label: 'Suspend…', onClick: async () => after(await suspendTenant(ctx, name)) }),
    buttons.button({ label: 'Compact…', onClick: async () => after(await compactTenant(ctx, name)), ...(suspended ? { refusal: 'A suspended tenant cannot be compacted; resume it first' } : {}) }),
    service ? buttons.button({ label: 'Delete…', danger: true, onClick: async () => {
      if (await deleteTenant(ctx, name, snapshotList.length)) {
        ctx.tenant.set('default')
        nav.open('default')
      }
    }, ...(name === 'default' ? { refusal: 'The default tenant cannot be deleted' } : {}) }) : null,
  )

  const usage = usagePanel(ctx, name, buttons)
  nav.showing(usage)
  replaceChildren(detail,
    h('div.detail-head', null,
      h('div', null,
        h('h2.detail-title', null, name, ' ', badge(state, suspended ? 'warn' : 'ok')),
        h('p.page-subtitle', null, !('parent' in tenant) ? `Opened by this ${access?.credential === 'tenant' ? access.scope : ''} token`
          : tenant.parent === null ? `Created ${timestamp(tenant.created_at)}` : ['Forked from ', parentText(tenant), ` · created ${timestamp(tenant.created_at)} · `, forkDiffLink(tenant)]),
      ),
      actions,
    ),
    usage.element,
    panel('Collections', collectionsView(name, collections), { subtitle: 'row counts are estimates kept without scanning', actions: h('a.button.small', { href: `#/schema/${encodeURIComponent(name)}` }, 'Schema') }),
    panel('Snapshots', snapshotsView(ctx, name, snapshots, buttons, nav), { subtitle: 'named, read-only versions' }),
    panel('Schema', schemaView(schema), { subtitle: 'loaded at start, migrated lazily per tenant' }),
    service ? tokensPanel(ctx, name, tokens, buttons, nav.reload) : null,
  )
}

function collectionsView(tenant: string, collections: unknown): HTMLElement {
  if (collections instanceof TenantdbError && collections.code === 'tenant_suspended') return h('p.empty', null, 'The tenant is suspended: resume it to read its collections.')
  if (!Array.isArray(collections)) return errorBox(`Cannot read collections: ${describeError(collections)}`)
  return table<CollectionEntry>([
    { label: 'Collection', cell: (c) => h('a.collection-link', { href: `#/data/${encodeURIComponent(tenant)}/${encodeURIComponent(c.name)}`, title: `Browse the rows of ${c.name}` }, h('code', null, c.name)) },
    { label: 'Rows (est.)', align: 'num', cell: (c) => count(c.rows) },
    { label: 'Indexes', cell: (c) => (c.indexes.length === 0 ? h('span.muted', null, 'primary key only') : c.indexes.map((i) => h('code.chip', null, i))) },
  ], collections as CollectionEntry[], { empty: 'The loaded schema declares no collections.' })
}

function schemaView(schema: unknown): HTMLElement {
  if (!(typeof schema === 'object' && schema !== null && 'fingerprint' in schema)) return errorBox(`Cannot read the schema status: ${describeError(schema)}`)
  const s = schema as SchemaStatus
  const status = s.tenant.blocked !== null
    ? badge('migration blocked', 'danger')
    : s.tenant.pending ? badge('migration pending', 'warn') : badge('up to date', 'ok')
  return h('div', null,
    keyValues([
      ['Status', status],
      ['Loaded schema', h('code.hash', { title: s.fingerprint }, shortHash(s.fingerprint))],
      ['Applied to tenant', h('code.hash', { title: s.tenant.applied_fingerprint ?? '' }, shortHash(s.tenant.applied_fingerprint))],
    ]),
    s.tenant.blocked === null ? null : h('div.callout.danger', null, s.tenant.blocked),
    s.tenant.pending && s.tenant.blocked === null ? h('p.help', null, 'The next query or collection read applies the migration (lazily, per tenant).') : null,
  )
}

function snapshotsView(ctx: Context, tenant: string, snapshots: unknown, buttons: WriteButtons, nav: Navigation): HTMLElement {
  if (!Array.isArray(snapshots)) return errorBox(`Cannot list snapshots: ${describeError(snapshots)}`)
  const list = snapshots as SnapshotEntry[]
  return table<SnapshotEntry>([
    { label: 'Snapshot', cell: (s) => h('code', null, s.name) },
    { label: 'LSN', align: 'num', cell: (s) => count(s.lsn) },
    { label: 'Created', cell: (s) => h('span.nowrap', null, timestamp(s.created_at)) },
    { label: '', cell: (s) => h('div.row-actions', null,
      h('a.button.small.ghost', { href: `#/data/${encodeURIComponent(tenant)}` + '//' + encodeURIComponent(s.name), title: 'Browse the rows as they were' }, 'Browse'),
      h('a.button.small.ghost', { href: `#/diff/${encodeURIComponent(tenant)}/${encodeURIComponent(s.name)}/head` }, 'Diff to head'),
      administers(ctx.access.value) ? buttons.button({ label: 'Restore…', small: true, danger: true, onClick: async () => {
        if (await restoreTenant(ctx, tenant, s)) await nav.reload()
      } }) : null,
      administers(ctx.access.value) ? buttons.button({ label: 'Fork…', small: true, onClick: async () => {
        const target = await forkTenant(ctx, tenant, list, s.name)
        if (target !== null) nav.open(target)
      } }) : null,
      isService(ctx.access.value) ? buttons.button({ label: 'Drop…', small: true, danger: true, onClick: async () => {
        if (await dropSnapshot(ctx, tenant, s.name)) await nav.reload()
      } }) : null,
    ) },
  ], list, { empty: administers(ctx.access.value) ? 'No snapshots yet. Take one with Snapshot… (write mode).' : 'No snapshots yet.', rowAttributes: (s) => ({ dataset: { snapshot: s.name } }) })
}
