// Schema: the schema the server loaded, as the tenant sees it. Per tenant, the
// fingerprint it was last migrated to beside the loaded one, and a pending or blocked
// migration with its reason. Per collection, its fields (type, optional, default,
// primary, unique, renames, and whatever else the IR says of a field, such as a
// reference to another collection, shown as it is), its indexes, and a link to its rows;
// then the named queries. #/schema/<tenant>.
import { describeError } from '../api/client.js'
import type { CollectionIR, FieldIR, QueryIR, SchemaStatus, Value } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { h, replaceChildren } from '../ui/dom.js'
import { shortHash } from '../ui/format.js'
import { notFound } from '../ui/not-found.js'
import { badge, errorBox, keyValues, pageHeader, panel } from '../ui/panel.js'
import { table } from '../ui/table.js'
import { typeText } from '../ui/typed-value.js'

/** What the console knows how to show of a field; any other member is shown as it is. */
const known_field_members = new Set(['name', 'type', 'optional', 'default', 'was', 'narrowed'])
const known_collection_members = new Set(['name', 'primary', 'primary_auto', 'fields', 'indexes', 'was', 'dropped'])

function defaultOf(field: FieldIR): Node | string {
  if (field.default === null) return h('span.muted', null, '—')
  return h('code', null, field.default.kind === 'now' ? 'now()' : JSON.stringify(field.default.value))
}

/** A member the IR has and the console does not know (e.g. `ref`): a reference reads as → target. */
function extraMember(name: string, value: unknown): HTMLElement {
  if (value === null || value === false || (Array.isArray(value) && value.length === 0)) return h('span')
  if (typeof value === 'string') return h('code.chip', { dataset: { member: name } }, `${name}: ${value}`)
  if (typeof value === 'object' && value !== null && 'collection' in value) {
    const target = value as { collection: unknown; field?: unknown }
    return h('code.chip.ref', { dataset: { member: name }, title: JSON.stringify(value) }, `${name} → ${String(target.collection)}${target.field === undefined ? '' : `.${String(target.field)}`}`)
  }
  return h('code.chip', { dataset: { member: name } }, `${name}: ${JSON.stringify(value)}`)
}

function fieldNotes(collection: CollectionIR, field: FieldIR): Node[] {
  const unique = collection.indexes.find((i) => i.unique && i.fields.length === 1 && i.fields[0] === field.name)
  const typeMembers = Object.entries(field.type).filter(([k]) => k !== 'kind' && k !== 'item')
  return [
    field.name === collection.primary ? badge(collection.primary_auto ? 'primary · auto' : 'primary', 'accent') : null,
    unique === undefined ? null : badge('unique', 'ok'),
    typeof field.was === 'string' ? h('code.chip', null, `was ${field.was}`) : null,
    field.narrowed === true ? h('code.chip', null, 'narrowed') : null,
    ...typeMembers.map(([k, v]) => extraMember(k, v)),
    ...Object.entries(field).filter(([k]) => !known_field_members.has(k)).map(([k, v]) => extraMember(k, v)),
  ].filter((n): n is HTMLElement => n !== null)
}

function collectionPanel(tenant: string, collection: CollectionIR): HTMLElement {
  const extras = Object.entries(collection).filter(([k]) => !known_collection_members.has(k))
  return panel(collection.name, [
    table<FieldIR>([
      { label: 'Field', cell: (f) => h('code', null, f.name) },
      { label: 'Type', cell: (f) => h('code.type', null, typeText(f.type)) },
      { label: 'Optional', cell: (f) => (f.optional ? 'yes' : h('span.muted', null, 'no')) },
      { label: 'Default', cell: defaultOf },
      { label: 'Constraints', cell: (f) => fieldNotes(collection, f) },
    ], collection.fields, { rowAttributes: (f) => ({ dataset: { field: f.name } }) }),
    h('div.schema-indexes', null,
      h('h3', null, 'Indexes'),
      collection.indexes.length === 0
        ? h('p.empty', null, 'Primary key only.')
        : h('ul.index-list', null, collection.indexes.map((i) => h('li', { dataset: { index: i.name } },
          h('code', null, i.name), ' on ', i.fields.map((f, n) => [n > 0 ? ', ' : '', h('code', null, f)]),
          i.unique ? [' ', badge('unique', 'ok')] : null,
          Object.entries(i).filter(([k]) => !['name', 'fields', 'unique'].includes(k)).map(([k, v]) => [' ', extraMember(k, v)])))),
      typeof collection.was === 'string' ? h('p.help', null, `Renamed from ${collection.was}.`) : null,
      (collection.dropped ?? []).length > 0 ? h('p.help', null, `Dropped fields accepted: ${(collection.dropped ?? []).join(', ')}.`) : null,
      extras.length > 0 ? h('p', null, extras.map(([k, v]) => extraMember(k, v))) : null,
    ),
  ], {
    className: 'flush schema-collection',
    subtitle: `${collection.fields.length} fields · primary key ${collection.primary}`,
    actions: h('a.button.small', { href: `#/data/${encodeURIComponent(tenant)}/${encodeURIComponent(collection.name)}` }, 'Browse rows'),
  })
}

function queriesPanel(queries: readonly QueryIR[]): HTMLElement {
  return panel('Named queries', queries.length === 0 ? h('p.empty', null, 'The schema declares no named queries.') : h('div.query-list', null, queries.map((q) => h('div.named-query', { dataset: { query: q.name } },
    h('div', null, h('code.query-name', null, `${q.name}(${q.params.map((p) => `$${p.name}: ${typeText(p.type)}${p.optional ? '?' : ''}${p.default === null ? '' : ` = ${JSON.stringify(p.default as Value)}`}`).join(', ')})`)),
    h('pre.query-body', null, q.body.trim()),
    h('p.help', null, 'Run it with ', h('code', null, `call ${q.name}(…)`), ' on the Query page.'),
  ))), { subtitle: 'declared in the schema files' })
}

function statusPanel(tenant: string, s: SchemaStatus): HTMLElement {
  const status = s.tenant.blocked !== null ? badge('migration blocked', 'danger') : s.tenant.pending ? badge('migration pending', 'warn') : badge('up to date', 'ok')
  return panel(`Tenant ${tenant}`, [
    keyValues([
      ['Status', status],
      ['Loaded schema', h('code.hash', { title: s.fingerprint }, shortHash(s.fingerprint))],
      ['Applied to this tenant', h('code.hash', { title: s.tenant.applied_fingerprint ?? '' }, shortHash(s.tenant.applied_fingerprint))],
    ]),
    s.tenant.blocked === null ? null : h('div.callout.danger.blocked-reason', null, h('div.callout-title', null, 'Why the migration is blocked'), s.tenant.blocked),
    s.tenant.pending && s.tenant.blocked === null ? h('p.help', null, 'The tenant was last migrated to another schema. Its next query or collection listing applies the loaded one (lazily, per tenant).') : null,
  ], { subtitle: 'the schema the tenant was migrated to', className: 'schema-status' })
}

export function schemaPage(ctx: Context, args: string[]): Page {
  const tenant = args[0] ?? ctx.tenant.value
  const element = h('div.page.schema-page', null, h('p.empty', null, 'Loading…'))
  let disposed = false
  void (async () => {
    try {
      const tenants = await ctx.api.tenants()
      if (!tenants.some((t) => t.name === tenant)) {
        replaceChildren(element, notFound('tenant', tenant, { href: '#/tenants', label: 'All tenants' }))
        return
      }
      const s = await ctx.schemas.get(tenant)
      if (disposed) return
      ctx.tenant.set(tenant)
      const pick = h('select#schema-tenant', { 'aria-label': 'Tenant', onchange: (e: Event) => ctx.navigate(`#/schema/${encodeURIComponent((e.target as HTMLSelectElement).value)}`) },
        tenants.map((t) => h('option', { value: t.name, selected: t.name === tenant }, t.name)))
      replaceChildren(element,
        pageHeader('Schema', 'Collections, fields, indexes and named queries of the loaded schema, and where this tenant stands with it.', h('label.inline', null, 'Tenant', pick)),
        statusPanel(tenant, s),
        s.ir.collections.map((c) => collectionPanel(tenant, c)),
        queriesPanel(s.ir.queries),
        (s.ir.dropped_collections ?? []).length > 0 ? panel('Dropped collections', h('p', null, (s.ir.dropped_collections ?? []).join(', '))) : null,
      )
      element.dataset.loaded = 'true'
    } catch (error) {
      replaceChildren(element, errorBox(`Cannot load the schema of ${tenant}: ${describeError(error)}`))
    }
  })()
  return { element, dispose() { disposed = true } }
}
