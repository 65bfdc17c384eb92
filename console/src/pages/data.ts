// Data: the rows of one collection of one tenant, page by page in primary-key order.
// Each page is one query, `c | where <filter> | where <pk> > $after | take $n`: keyset
// paging, so page 500 costs what page 1 costs (the plan shows the primary-key range).
// The filter is any Eel `where` expression, checked while typing and by the server.
// Pinned to a snapshot it reads that version. In write mode rows can be inserted,
// edited and deleted through forms generated from the schema; each change is one query
// that also checks the row is still as it was read, so a concurrent change is shown as
// a conflict instead of being overwritten. The URL holds the place:
// #/data/<tenant>/<collection>[/<snapshot>].
import { syntaxDiagnostics } from '../../../src/lang/index.js'
import { describeError, errorBody, isAnswered, type AnsweredError } from '../api/client.js'
import type { CollectionIR, QueryResult, Row, SchemaStatus, SnapshotEntry, TenantEntry, Value } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { plainMessage } from '../editor/eel-lint.js'
import { eelName } from '../editor/eel-text.js'
import { FilterEditor } from '../editor/filter-editor.js'
import { h, replaceChildren } from '../ui/dom.js'
import { showProblems } from '../ui/problem-list.js'
import { count } from '../ui/format.js'
import { notFound } from '../ui/not-found.js'
import { badge, errorBox, pageHeader, panel } from '../ui/panel.js'
import { toast } from '../ui/toast.js'
import { typedCell, typeText } from '../ui/typed-value.js'
import { writeButtons } from '../ui/write-button.js'
import { confirmAction } from '../ui/dialog.js'
import { planText } from './query-results.js'
import { openRowForm, type RowFormOutcome } from './row-form.js'

const page_sizes = [25, 50, 100, 200]

/** The query of one page (exported for the test of the text it writes). */
export function pageQuery(collection: CollectionIR, filter: string, after: boolean): { text: string; filterColumn: number } {
  const head = `${eelName(collection.name)} | where `
  const parts = [eelName(collection.name)]
  if (filter !== '') parts.push(`where ${filter}`)
  if (after) parts.push(`where ${eelName(collection.primary)} > $after`)
  parts.push('take $limit')
  return { text: parts.join(' | '), filterColumn: head.length }
}

/** `c | where pk == $key [and field == $base_i …]`: the row, if it is still as it was read. */
function guarded(collection: CollectionIR, base: Row, params: Record<string, Value>): string {
  const conditions = [`${eelName(collection.primary)} == $key`]
  params.key = base[collection.primary] ?? null
  collection.fields.forEach((field, i) => {
    if (field.name === collection.primary) return
    params[`was${i}`] = base[field.name] ?? null
    conditions.push(`${eelName(field.name)} == $was${i}`)
  })
  return `${eelName(collection.name)} | where ${conditions.join(' and ')}`
}

export function dataPage(ctx: Context, args: string[]): Page {
  const [tenantName = ctx.tenant.value, collectionArg, snapshotName] = args
  const collectionName = collectionArg === '' ? undefined : collectionArg
  const buttons = writeButtons(ctx.writeMode)
  const body = h('div.data-body', null, h('p.empty', null, 'Loading…'))
  const element = h('div.page.data-page', null, body)
  let filterEditor: FilterEditor | null = null
  let disposed = false

  async function load(): Promise<void> {
    let tenants: TenantEntry[]
    let schema: SchemaStatus
    let snapshots: SnapshotEntry[]
    try {
      tenants = await ctx.api.tenants()
      if (!tenants.some((t) => t.name === tenantName)) {
        replaceChildren(element, notFound('tenant', tenantName, { href: '#/tenants', label: 'All tenants' }))
        return
      }
      ;[schema, snapshots] = await Promise.all([ctx.schemas.get(tenantName), ctx.api.snapshots(tenantName)])
    } catch (error) {
      replaceChildren(body, errorBox(`Cannot load ${tenantName}: ${describeError(error)}`))
      return
    }
    if (disposed) return
    ctx.tenant.set(tenantName)
    const collections = schema.ir.collections
    const collection = collections.find((c) => c.name === (collectionName ?? collections[0]?.name))
    if (collection === undefined) {
      if (collectionName === undefined) replaceChildren(body, h('p.empty', null, 'The loaded schema declares no collections.'))
      else replaceChildren(element, notFound('collection', collectionName, { href: `#/schema/${encodeURIComponent(tenantName)}`, label: `The schema of ${tenantName}` }, `The loaded schema declares no collection by that name. It declares ${collections.map((c) => c.name).join(', ') || 'none'}.`))
      return
    }
    if (snapshotName !== undefined && !snapshots.some((s) => s.name === snapshotName)) {
      replaceChildren(element, notFound('snapshot', snapshotName, { href: `#/data/${encodeURIComponent(tenantName)}/${encodeURIComponent(collection.name)}`, label: 'Read the head instead' }, `Tenant ${tenantName} has no snapshot by that name. It has ${snapshots.map((s) => s.name).join(', ') || 'none'}.`))
      return
    }
    browse(schema, collection, snapshots, tenants)
  }

  function browse(schema: SchemaStatus, collection: CollectionIR, snapshots: SnapshotEntry[], tenants: TenantEntry[]): void {
    const pin = snapshotName ?? null
    const go = (tenant: string, name: string, snap: string | null) =>
      ctx.navigate(`#/data/${encodeURIComponent(tenant)}/${encodeURIComponent(name)}${snap === null ? '' : `/${encodeURIComponent(snap)}`}`)
    const tenantPick = h('select#data-tenant', { 'aria-label': 'Tenant', onchange: (e: Event) => go((e.target as HTMLSelectElement).value, collection.name, null) },
      tenants.map((t) => h('option', { value: t.name, selected: t.name === tenantName }, t.name)))
    const collectionPick = h('select#data-collection', { 'aria-label': 'Collection', onchange: (e: Event) => go(tenantName, (e.target as HTMLSelectElement).value, pin) },
      schema.ir.collections.map((c) => h('option', { value: c.name, selected: c.name === collection.name }, c.name)))
    const pinPick = h('select#data-pin', { 'aria-label': 'Read', onchange: (e: Event) => go(tenantName, collection.name, (e.target as HTMLSelectElement).value || null) },
      h('option', { value: '' }, 'head (live)'),
      snapshots.map((s) => h('option', { value: s.name, selected: s.name === pin }, `snapshot ${s.name} · LSN ${count(s.lsn)}`)))
    const sizePick = h('select#data-page-size', { 'aria-label': 'Rows per page' }, page_sizes.map((n) => h('option', { value: String(n), selected: n === 50 }, `${n} rows`)))

    const filterHost = h('div.filter-editor')
    const apply = h('button.button.primary', { type: 'button' }, 'Apply')
    const clear = h('button.button.ghost', { type: 'button' }, 'Clear')
    const problems = h('ul.problems', { 'aria-live': 'polite' })
    const first = h('button.button.small', { type: 'button' }, 'First')
    const prev = h('button.button.small', { type: 'button' }, '← Previous')
    const next = h('button.button.small', { type: 'button' }, 'Next →')
    const position = h('span.fact')
    const facts = h('div.result-facts')
    const table = h('div.data-table')
    const insert = buttons.button({ label: 'Insert row…', primary: true, onClick: () => edit(null), ...(pin === null ? {} : { refusal: 'A snapshot is read-only: read the head to change rows' }) })

    replaceChildren(element,
      pageHeader(`${collection.name}`, [`Rows of ${tenantName}, in primary-key order (`, h('code', null, collection.primary), '). ',
        h('a', { href: `#/schema/${encodeURIComponent(tenantName)}` }, 'Schema'), pin === null ? null : ' · ', pin === null ? null : badge(`read-only: snapshot ${pin}`, 'warn')],
      [h('label.inline', null, 'Tenant', tenantPick), h('label.inline', null, 'Collection', collectionPick), h('label.inline', null, 'Read', pinPick), h('label.inline', null, 'Page', sizePick), insert]),
      panel('Filter', [h('div.filter-row', null, filterHost, apply, clear), problems], { subtitle: 'an Eel where expression · Enter applies', className: 'filter-panel' }),
      panel('Rows', [facts, table], { className: 'result-panel rows-panel', actions: [position, first, prev, next] }),
    )

    /** `after` of each page shown so far: undefined for the first. */
    let cursors: Array<Value | undefined> = [undefined]
    let rows: Row[] = []
    let more = false
    let applied = ''

    filterEditor = new FilterEditor({
      parent: filterHost,
      doc: '',
      onApply: () => void applyFilter(),
      onProblems: (list) => showProblems(problems, list, (p) => `Column ${p.column}`),
      schema: () => schema.ir,
      collection: () => collection.name,
    })

    async function fetchPage(): Promise<void> {
      const after = cursors[cursors.length - 1]
      const limit = Number(sizePick.value)
      const { text, filterColumn } = pageQuery(collection, applied, after !== undefined)
      const params: Record<string, Value> = { limit: limit + 1 }
      if (after !== undefined) params.after = after
      replaceChildren(facts, h('span.fact.muted', null, 'Loading…'))
      let result: QueryResult
      try {
        result = await ctx.api.query(tenantName, text, params, pin)
      } catch (error) {
        if (isAnswered(error) && applied !== '') filterEditor?.showServerError(errorBody(error), filterColumn)
        replaceChildren(facts, h('code.page-query', null, text))
        replaceChildren(table, failure(error))
        rows = []
        position.textContent = 'not read'
        next.disabled = true
        return
      }
      filterEditor?.showServerError(null, 0)
      more = result.rows.length > limit
      rows = result.rows.slice(0, limit).map((r) => Object.fromEntries(result.columns.map((c, i) => [c, r[i] ?? null])))
      const start = (cursors.length - 1) * limit
      position.textContent = rows.length === 0 ? 'no rows' : `rows ${count(start + 1)}–${count(start + rows.length)}`
      first.disabled = cursors.length === 1
      prev.disabled = cursors.length === 1
      next.disabled = !more
      replaceChildren(facts,
        result.plan === undefined ? null : h('span.plan', { dataset: { access: result.plan.access } }, h('span.fact-label', null, 'Plan'), badge(result.plan.access, result.plan.access === 'scan' ? 'warn' : 'accent'), h('span', null, planText(result.plan))),
        result.stats === undefined ? null : h('span.fact', null, `${count(result.stats.rows_examined)} examined · ${result.stats.elapsed_ms} ms`),
        h('code.page-query', { title: 'the query this page ran' }, text))
      element.dataset.loaded = String(Date.now())
      replaceChildren(table, rowsTable(collection, rows, pin === null))
    }

    function rowsTable(c: CollectionIR, list: Row[], writable: boolean): HTMLElement {
      if (list.length === 0) return h('p.empty', null, applied === '' ? 'No rows.' : 'No row matches the filter.')
      return h('div.table-wrap', null, h('table.data.results.data-rows', null,
        h('thead', null, h('tr', null, c.fields.map((f) => h('th', { class: f.type.kind === 'int' || f.type.kind === 'float' ? 'num' : null, title: `${typeText(f.type)}${f.optional ? '?' : ''}` }, f.name, h('span.th-type', null, typeText(f.type)))), writable ? h('th') : null)),
        h('tbody', null, list.map((row) => h('tr', { dataset: { key: JSON.stringify(row[c.primary] ?? null) } },
          c.fields.map((f) => typedCell(row[f.name], f.type)),
          writable ? h('td', null, h('div.row-actions', null,
            buttons.button({ label: 'Edit…', small: true, onClick: () => edit(row) }),
            buttons.button({ label: 'Delete…', small: true, danger: true, onClick: () => remove(row) }))) : null,
        ))),
      ))
    }

    async function applyFilter(): Promise<void> {
      const text = filterEditor?.text.trim() ?? ''
      if (text !== '' && syntaxDiagnostics(text, 'expression').length > 0) {
        toast('The filter has a syntax error (shown under it): fix it before applying.', 'error')
        return
      }
      applied = text
      cursors = [undefined]
      await fetchPage()
    }

    /** One query; affected 0 means the row is no longer as it was read. */
    async function change(text: string, params: Record<string, Value>, key: Value): Promise<RowFormOutcome> {
      try {
        const result = await ctx.api.query(tenantName, text, params, null)
        if (Number(result.rows[0]?.[0] ?? 0) > 0) return { ok: true }
        const now = await ctx.api.query(tenantName, `${eelName(collection.name)} | get $key`, { key }, null)
        return { ok: false, conflict: now.rows[0] === undefined ? null : Object.fromEntries(now.columns.map((c, i) => [c, now.rows[0]?.[i] ?? null])) }
      } catch (error) {
        // A lost first-committer-wins race (conflict: true) is shown like any refusal,
        // with the server's sentence: nothing was written, and the form keeps the values.
        if (isAnswered(error)) return refusal(error)
        return { ok: false, code: 'network', message: describeError(error), status: 0, fields: [] }
      }
    }

    async function edit(row: Row | null): Promise<void> {
      const accepted = await openRowForm({
        collection,
        ...(row === null ? {} : { row }),
        submit: async (values, base) => {
          if (base === null) {
            try {
              await ctx.api.query(tenantName, `insert ${eelName(collection.name)} $row`, { row: values }, null)
              return { ok: true }
            } catch (error) {
              if (isAnswered(error)) return refusal(error)
              return { ok: false, code: 'network', message: describeError(error), status: 0, fields: [] }
            }
          }
          const params: Record<string, Value> = {}
          const where = guarded(collection, base, params)
          const sets = Object.entries(values).map(([field, value], i) => {
            params[`set${i}`] = value
            return `${eelName(field)}: $set${i}`
          })
          return change(`${where} | update {${sets.join(', ')}}`, params, base[collection.primary] ?? null)
        },
      })
      if (accepted) {
        toast(row === null ? `inserted a row into ${collection.name}` : `updated ${collection.name} ${JSON.stringify(row[collection.primary])}`, 'ok')
        await fetchPage()
      }
    }

    async function remove(row: Row): Promise<void> {
      const key = row[collection.primary] ?? null
      const ok = await confirmAction({
        title: `Delete ${collection.name} ${JSON.stringify(key)}?`,
        body: h('p', null, 'This deletes the row from the head of ', h('code', null, tenantName), ', if it is still as shown. Snapshots keep it. One delete, checked by the server.'),
        confirmLabel: 'Delete row',
        danger: true,
      })
      if (!ok) return
      const params: Record<string, Value> = {}
      const outcome = await change(`${guarded(collection, row, params)} | delete`, params, key)
      if (outcome.ok) toast(`deleted ${collection.name} ${JSON.stringify(key)}`, 'ok')
      else if ('conflict' in outcome) toast(`not deleted: the row ${outcome.conflict === null ? 'was deleted' : 'changed'} since it was read (conflict); the list is read again`, 'error')
      else toast(`delete failed: ${outcome.message} (${outcome.status} ${outcome.code})`, 'error')
      await fetchPage()
    }

    apply.addEventListener('click', () => void applyFilter())
    clear.addEventListener('click', () => {
      filterEditor?.view.dispatch({ changes: { from: 0, to: filterEditor.view.state.doc.length, insert: '' } })
      void applyFilter()
    })
    next.addEventListener('click', () => {
      const last = rows[rows.length - 1]
      if (last === undefined) return
      cursors.push(last[collection.primary] ?? null)
      void fetchPage()
    })
    prev.addEventListener('click', () => { if (cursors.length > 1) { cursors.pop(); void fetchPage() } })
    first.addEventListener('click', () => { cursors = [undefined]; void fetchPage() })
    sizePick.addEventListener('change', () => { cursors = [undefined]; void fetchPage() })
    void fetchPage()
  }

  void load()
  return {
    element,
    dispose() {
      disposed = true
      buttons.dispose()
      filterEditor?.destroy()
    },
  }
}

/** A refusal as the row form shows it: the body's code, sentence and `fields` (docs/api.md, "Errors"). */
function refusal(error: AnsweredError): RowFormOutcome {
  return { ok: false, code: error.code, message: error.message, status: error.status, fields: errorBody(error).fields ?? [] }
}

function failure(error: unknown): HTMLElement {
  if (!isAnswered(error)) return errorBox(describeError(error))
  const body = errorBody(error)
  return h('div.callout.danger', { role: 'alert' },
    h('div.callout-title', null, badge(error.code, 'danger'), h('span.muted', null, `HTTP ${error.status}`)),
    h('p', null, plainMessage(body)),
    body.line === undefined ? null : h('p.muted', null, 'The filter is marked where the server found the problem.'))
}
