// Query: an Eel editor (the project's grammar, the server's diagnostics inline and as
// text with line and column, completion from the tenant's schema), JSON params, a
// snapshot pin (Service-Snapshot), and the result as a table with the plan hint,
// exported as CSV or JSON. Every run goes into this browser's history; queries can be
// saved by name. Ctrl-Enter runs.
import { describeError, errorBody, isAnswered } from '../api/client.js'
import type { CollectionEntry, QueryResult, SchemaIR, SnapshotEntry, Value } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { QueryEditor } from '../editor/query-editor.js'
import { h, replaceChildren } from '../ui/dom.js'
import { showProblems } from '../ui/problem-list.js'
import { clearHistory, deleteSaved, queryHistory, remember, savedQueries, saveQuery } from '../state/query-library.js'
import { openDialog } from '../ui/dialog.js'
import { download, exportName, toCsv, toJson } from '../ui/export.js'
import { count, timestamp } from '../ui/format.js'
import { badge, errorBox, pageHeader, panel } from '../ui/panel.js'
import { toast } from '../ui/toast.js'
import { queryResultView } from './query-results.js'
import { tenantSelect } from './tenant-select.js'

// The text and params outlive a visit to another page (this tab only).
const text_key = 'tenantdb.console.query.text'
const params_key = 'tenantdb.console.query.params'

export function queryPage(ctx: Context): Page {
  const tenant = tenantSelect(ctx)
  const pin = h('select#snapshot-pin', { 'aria-label': 'Snapshot pin' }, h('option', { value: '' }, 'head (live)'))
  const run = h('button.button.primary', { type: 'button', title: 'Ctrl-Enter' }, 'Run', h('kbd', null, 'Ctrl ⏎'))
  const problems = h('ul.problems', { 'aria-live': 'polite' })
  const params = h('textarea#params', { spellcheck: 'false', rows: 6, 'aria-label': 'Params (JSON)' })
  params.value = sessionStorage.getItem(params_key) ?? '{}'
  const paramsError = h('p.field-error')
  const results = h('div.results', null, h('p.empty', null, 'Run a query to see its rows here.'))
  const reference = h('div.reference')
  const editorHost = h('div.editor')
  const historyList = h('div.history')
  const savedList = h('div.saved')
  const exportCsv = h('button.button.small', { type: 'button', disabled: true, title: 'Save the rows shown as CSV' }, 'CSV')
  const exportJson = h('button.button.small', { type: 'button', disabled: true, title: 'Save the rows shown as JSON' }, 'JSON')
  const save = h('button.button', { type: 'button', title: 'Save this query by name (in this browser)' }, 'Save…')
  let schema: SchemaIR | null = null
  let last: QueryResult | null = null

  const element = h('div.page.query-page', null,
    pageHeader('Query', 'Pipelines, writes and atomic blocks in Eel. Schema declarations and tenant operations are refused here.',
      [h('label.inline', null, 'Tenant', tenant.element), h('label.inline', null, 'Read', pin), save, run]),
    h('div.query-grid', null,
      h('div.query-main', null,
        panel('Eel', [editorHost, problems], { className: 'editor-panel', subtitle: 'checked as you type · Ctrl-Enter runs' }),
      ),
      h('div.query-side', null,
        panel('Params', [params, paramsError], { subtitle: 'JSON object; $name in the query' }),
        panel('Saved', savedList, { subtitle: 'in this browser', className: 'flush' }),
        panel('History', historyList, { subtitle: 'last 50 runs', className: 'flush', actions: h('button.button.ghost.small', { type: 'button', onclick: () => { clearHistory(); showHistory() } }, 'Clear') }),
        panel('Collections', reference),
      ),
    ),
    panel('Result', results, { className: 'result-panel', actions: [h('span.fact-label', null, 'Export'), exportCsv, exportJson] }),
  )

  const editor = new QueryEditor({
    parent: editorHost,
    doc: sessionStorage.getItem(text_key) ?? 'users | take 20',
    onRun: () => void execute(),
    onProblems: (list) => showProblems(problems, list, (p) => `Line ${p.line}, column ${p.column}`),
    onChange: (doc) => sessionStorage.setItem(text_key, doc),
    schema: () => schema,
  })
  const rowsOf = (r: QueryResult) => (r.results !== undefined && r.results.length > 1 ? r.results[r.results.length - 1] ?? r : r)
  exportCsv.addEventListener('click', () => {
    if (last === null) return
    const r = rowsOf(last)
    download(`${exportName(ctx.tenant.value)}.csv`, 'text/csv', toCsv(r.columns, r.rows))
  })
  exportJson.addEventListener('click', () => {
    if (last === null) return
    const r = rowsOf(last)
    download(`${exportName(ctx.tenant.value)}.json`, 'application/json', toJson(r.columns, r.rows))
  })
  save.addEventListener('click', () => void (async () => {
    const values = await openDialog({
      title: 'Save query',
      body: h('pre.query-body', null, editor.text),
      fields: [{ name: 'name', label: 'Name', placeholder: 'active users', help: 'Kept in this browser (localStorage). A name saved again is replaced.' }],
      confirmLabel: 'Save',
    })
    if (values === null) return
    if (saveQuery(values.name ?? '', editor.text)) toast(`saved "${values.name ?? ''}"`, 'ok')
    else toast('The list of saved queries is full: delete one first.', 'error')
    showSaved()
  })())

  function useText(text: string): void {
    editor.setText(text)
    editor.focus()
  }

  function showHistory(): void {
    const entries = queryHistory()
    replaceChildren(historyList, entries.length === 0 ? h('p.empty', null, 'Queries you run appear here.') : h('ul.query-history', null, entries.map((e) => h('li', null,
      h('button.link.history-entry', { type: 'button', title: `${e.text}\n\n${e.tenant} · ${timestamp(e.at)}`, onclick: () => useText(e.text) }, e.text),
      h('span.muted', null, `${e.tenant} · ${timestamp(e.at).slice(11)}`)))))
  }

  function showSaved(): void {
    const list = savedQueries()
    replaceChildren(savedList, list.length === 0 ? h('p.empty', null, 'Save a query with Save… to keep it here.') : h('ul.query-history', null, list.map((q) => h('li', { dataset: { saved: q.name } },
      h('button.link.saved-entry', { type: 'button', title: q.text, onclick: () => useText(q.text) }, q.name),
      h('button.button.ghost.small', { type: 'button', title: `Forget ${q.name}`, onclick: () => { deleteSaved(q.name); showSaved() } }, '×')))))
  }
  showHistory()
  showSaved()
  params.addEventListener('input', () => sessionStorage.setItem(params_key, params.value))
  params.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
      event.preventDefault()
      void execute()
    }
  })
  run.addEventListener('click', () => void execute())

  async function execute(): Promise<void> {
    const parsed = parseParams(params.value)
    paramsError.textContent = typeof parsed === 'string' ? parsed : ''
    if (typeof parsed === 'string') return
    run.disabled = true
    remember(editor.text, ctx.tenant.value)
    showHistory()
    replaceChildren(results, h('p.empty', null, 'Running…'))
    const started = performance.now()
    try {
      const result = await ctx.api.query(ctx.tenant.value, editor.text, parsed, pin.value === '' ? null : pin.value)
      editor.showServerError(null)
      last = result
      exportCsv.disabled = exportJson.disabled = rowsOf(result).rows.length === 0
      replaceChildren(results, queryResultView(result, performance.now() - started))
    } catch (error) {
      last = null
      exportCsv.disabled = exportJson.disabled = true
      const body = isAnswered(error) ? errorBody(error) : null
      editor.showServerError(body)
      replaceChildren(results, failure(error))
    } finally {
      run.disabled = false
    }
  }

  async function loadTenant(name: string): Promise<void> {
    const [snapshots, collections, status] = await Promise.all([
      ctx.api.snapshots(name).catch(() => [] as SnapshotEntry[]),
      ctx.api.collections(name).catch((error: unknown) => error),
      ctx.schemas.get(name).catch(() => null),
    ])
    schema = status?.ir ?? null
    const previous = pin.value
    replaceChildren(pin,
      h('option', { value: '' }, 'head (live)'),
      snapshots.map((s) => h('option', { value: s.name, selected: s.name === previous }, `snapshot ${s.name} · LSN ${count(s.lsn)}`)),
    )
    replaceChildren(reference, Array.isArray(collections) ? collectionList(name, collections as CollectionEntry[], editor) : errorBox(describeError(collections)))
  }
  const stopTenant = ctx.tenant.subscribe((name) => void loadTenant(name))
  void loadTenant(ctx.tenant.value)
  queueMicrotask(() => editor.focus())

  return {
    element,
    dispose() {
      stopTenant()
      tenant.dispose()
      editor.destroy()
    },
  }
}

function parseParams(text: string): Record<string, Value> | string {
  if (text.trim() === '') return {}
  try {
    const value = JSON.parse(text) as unknown
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'Params must be a JSON object, e.g. {"min": 30}.'
    return value as Record<string, Value>
  } catch (error) {
    return `Params are not valid JSON: ${(error as Error).message}`
  }
}

function failure(error: unknown): HTMLElement {
  if (!isAnswered(error)) return errorBox(describeError(error))
  const body = errorBody(error)
  const title = h('div.callout-title', null, badge(body.code, 'danger'), h('span.muted', null, `HTTP ${error.status}`))
  // An Eel error is shown in full by the editor; here only where to look.
  if (body.line !== undefined) {
    return h('div.callout.danger', { role: 'alert' }, title,
      h('p', null, `Not run: the server found a problem at line ${body.line}, column ${body.column ?? '?'} (marked in the editor above).`))
  }
  return h('div.callout.danger', { role: 'alert' }, title,
    h('p', null, body.error),
    body.conflict === true ? h('p.muted', null, 'Another transaction wrote the same row first. Nothing of this one was written; running it again is safe.') : null,
    body.hint === undefined ? null : h('p.muted', null, `Hint: ${body.hint}`),
  )
}

/** The tenant's collections; a click puts the name in the editor; Browse opens its rows. */
function collectionList(tenant: string, collections: readonly CollectionEntry[], editor: QueryEditor): HTMLElement {
  if (collections.length === 0) return h('p.empty', null, 'No collections in the loaded schema.')
  return h('ul.collection-list', null, collections.map((c) => h('li', null,
    h('button.link', { type: 'button', title: `Query ${c.name}`, onclick: () => {
      const view = editor.view
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: `${c.name} | take 20` } })
      view.focus()
    } }, c.name),
    h('span.num.muted', null, `${count(c.rows)} rows · `, h('a', { href: `#/data/${encodeURIComponent(tenant)}/${encodeURIComponent(c.name)}` }, 'browse')),
  )))
}
