// Query: an Eel editor (the project's grammar, the server's diagnostics inline and as
// text with line and column), JSON params, a snapshot pin (Service-Snapshot), and the
// result as a table with the plan hint. Ctrl-Enter runs.
import { ApiError, describeError } from '../api/client.js'
import type { CollectionEntry, SnapshotEntry, Value } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { describeProblem, type EelProblem } from '../editor/eel-lint.js'
import { QueryEditor } from '../editor/query-editor.js'
import { h, replaceChildren } from '../ui/dom.js'
import { count } from '../ui/format.js'
import { badge, errorBox, pageHeader, panel } from '../ui/panel.js'
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

  const element = h('div.page.query-page', null,
    pageHeader('Query', 'Pipelines, writes and atomic blocks in Eel. Schema declarations and tenant operations are refused here.',
      [h('label.inline', null, 'Tenant', tenant.element), h('label.inline', null, 'Read', pin), run]),
    h('div.query-grid', null,
      h('div.query-main', null,
        panel('Eel', [editorHost, problems], { className: 'editor-panel', subtitle: 'checked as you type · Ctrl-Enter runs' }),
      ),
      h('div.query-side', null,
        panel('Params', [params, paramsError], { subtitle: 'JSON object; $name in the query' }),
        panel('Collections', reference),
      ),
    ),
    panel('Result', results, { className: 'result-panel' }),
  )

  const editor = new QueryEditor({
    parent: editorHost,
    doc: sessionStorage.getItem(text_key) ?? 'users | take 20',
    onRun: () => void execute(),
    onProblems: (list) => showProblems(problems, list),
    onChange: (doc) => sessionStorage.setItem(text_key, doc),
  })
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
    replaceChildren(results, h('p.empty', null, 'Running…'))
    const started = performance.now()
    try {
      const result = await ctx.api.query(ctx.tenant.value, editor.text, parsed, pin.value === '' ? null : pin.value)
      editor.showServerError(null)
      replaceChildren(results, queryResultView(result, performance.now() - started))
    } catch (error) {
      const body = error instanceof ApiError ? error.body : null
      editor.showServerError(body)
      replaceChildren(results, failure(error))
    } finally {
      run.disabled = false
    }
  }

  async function loadTenant(name: string): Promise<void> {
    const [snapshots, collections] = await Promise.all([
      ctx.api.snapshots(name).catch(() => [] as SnapshotEntry[]),
      ctx.api.collections(name).catch((error: unknown) => error),
    ])
    const previous = pin.value
    replaceChildren(pin,
      h('option', { value: '' }, 'head (live)'),
      snapshots.map((s) => h('option', { value: s.name, selected: s.name === previous }, `snapshot ${s.name} · LSN ${count(s.lsn)}`)),
    )
    replaceChildren(reference, Array.isArray(collections) ? collectionList(collections as CollectionEntry[], editor) : errorBox(describeError(collections)))
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

function showProblems(list: HTMLElement, problems: readonly EelProblem[]): void {
  replaceChildren(list, problems.map((p) => h('li.problem', { dataset: { line: String(p.line), column: String(p.column) } },
    h('span.problem-pos', null, `Line ${p.line}, column ${p.column}`),
    badge(p.code, 'danger'),
    h('span.problem-text', null, p.message),
    p.hint === undefined ? null : h('span.problem-hint', null, p.hint),
    h('span.problem-source', null, p.source === 'server' ? 'from the server' : 'while typing'),
  )))
  list.title = problems.map(describeProblem).join('\n')
}

function failure(error: unknown): HTMLElement {
  if (!(error instanceof ApiError)) return errorBox(describeError(error))
  const { body } = error
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

/** The tenant's collections; a click puts the name in the editor. */
function collectionList(collections: readonly CollectionEntry[], editor: QueryEditor): HTMLElement {
  if (collections.length === 0) return h('p.empty', null, 'No collections in the loaded schema.')
  return h('ul.collection-list', null, collections.map((c) => h('li', null,
    h('button.link', { type: 'button', title: `Query ${c.name}`, onclick: () => {
      const view = editor.view
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: `${c.name} | take 20` } })
      view.focus()
    } }, c.name),
    h('span.num.muted', null, `${count(c.rows)} rows`),
  )))
}
