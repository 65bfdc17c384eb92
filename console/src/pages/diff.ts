// Diff: two versions of a tenant (a snapshot, and another snapshot or the head), and
// what changed between them, collection by collection: rows added, rows removed, and
// for changed rows only the fields that differ. A fork made from a snapshot can also be
// compared with its parent at the fork point (from = parent@snapshot). The URL holds
// the choice (#/diff/<tenant>/<from>/<to>), so a link opens it directly; a link naming a
// tenant or snapshot that does not exist says so.
import { describeError } from '../api/client.js'
import type { DiffCollection, DiffResult, Row, SnapshotEntry, TenantEntry } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { h, replaceChildren } from '../ui/dom.js'
import { count } from '../ui/format.js'
import { notFound } from '../ui/not-found.js'
import { badge, errorBox, pageHeader, panel, tile } from '../ui/panel.js'
import { valueTable } from '../ui/table.js'
import { valueCell } from '../ui/value.js'
import { tenantSelect } from './tenant-select.js'

export function diffPage(ctx: Context, args: string[]): Page {
  const [argTenant, argFrom, argTo] = args
  if (argTenant !== undefined && argTenant !== '') ctx.tenant.set(argTenant)
  const tenant = tenantSelect(ctx)
  const from = h('select#diff-from', { 'aria-label': 'From version' })
  const to = h('select#diff-to', { 'aria-label': 'To version' })
  const collection = h('select#diff-collection', { 'aria-label': 'Collection' }, h('option', { value: '' }, 'All collections'))
  const compare = h('button.button.primary', { type: 'button' }, 'Compare')
  const output = h('div.diff-output', null, h('p.empty', null, 'Choose two versions and compare them.'))

  const element = h('div.page', null,
    pageHeader('Diff', 'Rows added, removed and changed between two versions of a tenant.',
      [h('label.inline', null, 'Tenant', tenant.element), h('label.inline', null, 'From', from), h('span.arrow', { 'aria-hidden': 'true' }, '→'), h('label.inline', null, 'To', to), h('label.inline', null, 'Collection', collection), compare]),
    output,
  )

  async function run(): Promise<void> {
    if (from.value === '') return
    compare.disabled = true
    replaceChildren(output, h('p.empty', null, 'Comparing…'))
    try {
      const result = await ctx.api.diff(ctx.tenant.value, from.value, to.value, collection.value === '' ? undefined : collection.value)
      replaceChildren(output, diffView(result))
      window.history.replaceState(null, '', `#/diff/${encodeURIComponent(ctx.tenant.value)}/${encodeURIComponent(from.value)}/${encodeURIComponent(to.value)}`)
    } catch (error) {
      replaceChildren(output, errorBox(`Cannot compare: ${describeError(error)}`))
    } finally {
      compare.disabled = false
    }
  }
  compare.addEventListener('click', () => void run())

  let first = true
  async function loadTenant(name: string): Promise<void> {
    const [snapshots, collections, tenants] = await Promise.all([
      ctx.api.snapshots(name).catch(() => [] as SnapshotEntry[]),
      ctx.api.collections(name).catch(() => []),
      ctx.api.tenants().catch(() => [] as TenantEntry[]),
    ])
    const entry = tenants.find((t) => t.name === name)
    if (first && tenants.length > 0 && entry === undefined) {
      replaceChildren(element, notFound('tenant', name, { href: '#/diff/default', label: 'Diff of default' }))
      return
    }
    const known = (v: string | undefined) => v === undefined || v === 'head' || v.includes('@') || snapshots.some((s) => s.name === v)
    if (first && (!known(argFrom) || !known(argTo))) {
      const missing = known(argFrom) ? argTo ?? '' : argFrom ?? ''
      replaceChildren(element, notFound('snapshot', missing, { href: `#/diff/${encodeURIComponent(name)}`, label: `Diff of ${name}` },
        `Tenant ${name} has no snapshot by that name. It has ${snapshots.map((s) => s.name).join(', ') || 'none'}.`))
      return
    }
    // The newest snapshot is the usual "before"; the head the usual "after".
    const ordered = [...snapshots].sort((a, b) => b.lsn - a.lsn)
    const wantFrom = first ? argFrom : undefined
    const wantTo = first ? argTo : undefined
    const parent = entry?.parent
    const forkPoint = parent !== undefined && parent !== null && parent.snapshot !== null ? `${parent.tenant}@${parent.snapshot}` : null
    replaceChildren(from,
      forkPoint === null ? null : h('option', { value: forkPoint, selected: forkPoint === wantFrom }, `parent at the fork point · ${forkPoint} · LSN ${count(parent?.lsn ?? 0)}`),
      wantFrom !== undefined && wantFrom.includes('@') && wantFrom !== forkPoint ? h('option', { value: wantFrom, selected: true }, wantFrom) : null,
      ordered.map((s) => h('option', { value: s.name, selected: s.name === wantFrom }, `${s.name} · LSN ${count(s.lsn)}`)))
    replaceChildren(to, h('option', { value: 'head' }, 'head (now)'), ordered.map((s) => h('option', { value: s.name, selected: s.name === wantTo }, `${s.name} · LSN ${count(s.lsn)}`)))
    replaceChildren(collection, h('option', { value: '' }, 'All collections'), collections.map((c) => h('option', { value: c.name }, c.name)))
    compare.disabled = from.options.length === 0
    if (from.options.length === 0) {
      replaceChildren(output, h('div.callout.info', null, `Tenant ${name} has no snapshots yet. Take one on the `, h('a', { href: `#/tenants/${encodeURIComponent(name)}` }, 'Tenants page'), ' (write mode), change some rows, then compare it with the head.'))
    } else if (first && argFrom !== undefined) {
      await run()
    } else {
      replaceChildren(output, h('p.empty', null, 'Choose two versions and compare them.'))
    }
    first = false
  }
  const stopTenant = ctx.tenant.subscribe((name) => void loadTenant(name))
  void loadTenant(ctx.tenant.value)

  return {
    element,
    dispose() {
      stopTenant()
      tenant.dispose()
    },
  }
}

function diffView(result: DiffResult): HTMLElement {
  const entries = Object.entries(result.collections)
  const sum = (pick: (c: DiffCollection) => number) => entries.reduce((n, [, c]) => n + pick(c), 0)
  const added = sum((c) => c.added.length)
  const removed = sum((c) => c.removed.length)
  const changed = sum((c) => c.changed.length)
  const versions = `${result.from.name} (LSN ${count(result.from.lsn)}) → ${result.to.name} (LSN ${count(result.to.lsn)})`
  return h('div.diff', null,
    h('div.tiles', null,
      tile('Added', count(added), { tone: added > 0 ? 'ok' : 'neutral', note: 'rows only in the newer version' }),
      tile('Removed', count(removed), { tone: removed > 0 ? 'danger' : 'neutral', note: 'rows only in the older version' }),
      tile('Changed', count(changed), { tone: changed > 0 ? 'accent' : 'neutral', note: 'same key, different fields' }),
      tile('Versions', `${result.from.name} → ${result.to.name}`, { note: `LSN ${count(result.from.lsn)} → ${count(result.to.lsn)}` }),
    ),
    result.truncated ? h('div.callout.warn', null, 'The diff hit its row limit: only part of the changes is shown. Narrow it to one collection.') : null,
    entries.length === 0 || added + removed + changed === 0
      ? h('p.empty', null, `No differences: ${versions}.`)
      : entries.filter(([, c]) => c.added.length + c.removed.length + c.changed.length > 0).map(([name, c]) => collectionDiff(name, c)),
  )
}

function collectionDiff(name: string, diff: DiffCollection): HTMLElement {
  const summary = [
    diff.added.length > 0 ? badge(`+${count(diff.added.length)} added`, 'ok') : null,
    diff.removed.length > 0 ? badge(`−${count(diff.removed.length)} removed`, 'danger') : null,
    diff.changed.length > 0 ? badge(`~${count(diff.changed.length)} changed`, 'accent') : null,
  ].filter((b): b is HTMLElement => b !== null)
  return panel(name, [
    diff.added.length === 0 ? null : h('div.diff-section.added', null, h('h3', null, 'Added'), rowsTable(diff.added, 'row-added')),
    diff.removed.length === 0 ? null : h('div.diff-section.removed', null, h('h3', null, 'Removed'), rowsTable(diff.removed, 'row-removed')),
    diff.changed.length === 0 ? null : h('div.diff-section.changed', null, h('h3', null, 'Changed'), changedTable(diff.changed)),
  ], { actions: summary, className: 'diff-collection' })
}

function rowsTable(rows: readonly Row[], rowClass: string): HTMLElement {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))]
  return valueTable(columns, rows.map((r) => columns.map((c) => r[c] ?? null)), { rowClass })
}

/** One line per field that differs: key, field, before, after. */
function changedTable(changed: DiffCollection['changed']): HTMLElement {
  const lines = changed.flatMap(({ key, before, after }) => {
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])]
      .filter((f) => JSON.stringify(before[f] ?? null) !== JSON.stringify(after[f] ?? null))
    return fields.map((field, i) => ({ key, field, before: before[field] ?? null, after: after[field] ?? null, first: i === 0 }))
  })
  return h('div.table-wrap', null, h('table.data.changed-table', null,
    h('thead', null, h('tr', null, h('th.num', null, 'Key'), h('th', null, 'Field'), h('th', null, 'Before'), h('th', null, 'After'))),
    h('tbody', null, lines.map((line) => h('tr', { class: line.first ? 'event-start' : null },
      line.first ? valueCell(line.key) : h('td'),
      h('td', null, h('code', null, line.field)),
      withClass(valueCell(line.before), 'before'),
      withClass(valueCell(line.after), 'after'),
    ))),
  ))
}

function withClass(cell: HTMLTableCellElement, name: string): HTMLTableCellElement {
  cell.classList.add(name)
  return cell
}
