// Tail: committed changes of one tenant as they happen, through the client's change
// feed (api/tail-stream.ts). A collection filter narrows it (server-side); pause ends
// the feed and resume starts one after the last LSN shown, so nothing is missed or
// shown twice.
import { describeError } from '../api/client.js'
import { TailStream, type TailStatus } from '../api/tail-stream.js'
import type { TailChange, TailEvent } from '../api/types.js'
import type { Context, Page } from '../context.js'
import { h, replaceChildren } from '../ui/dom.js'
import { count, timestamp } from '../ui/format.js'
import { badge, errorBox, pageHeader, panel, type Tone } from '../ui/panel.js'
import { valueText } from '../ui/value.js'
import { tenantSelect } from './tenant-select.js'

/** Events kept on screen; older ones drop off the bottom (bounded memory). */
const events_shown_max = 500

const op_tones: Record<TailChange['op'], Tone> = { insert: 'ok', update: 'accent', delete: 'danger' }

export function tailPage(ctx: Context): Page {
  const tenant = tenantSelect(ctx)
  const collection = h('select#tail-collection', { 'aria-label': 'Collection' }, h('option', { value: '' }, 'All collections'))
  const from = h('select#tail-from', { 'aria-label': 'Start from' },
    h('option', { value: 'now' }, 'New events'),
    h('option', { value: 'oldest' }, 'Oldest retained'),
  )
  const pause = h('button.button', { type: 'button' }, 'Pause')
  const clear = h('button.button.ghost', { type: 'button' }, 'Clear')
  const status = h('span.tail-status')
  const received = h('span.muted')
  const problem = h('div')
  const rows = h('tbody')
  const empty = h('p.empty', null, 'Waiting for commits… Insert, update or delete rows of this tenant and they appear here.')
  const list = h('div.table-wrap', null, h('table.data.tail-table', null,
    h('thead', null, h('tr', null, ['LSN', 'Committed', 'Op', 'Collection', 'Key', 'Row'].map((c, i) => h('th', { class: i === 0 || i === 4 ? 'num' : null }, c)))),
    rows,
  ))

  const element = h('div.page', null,
    pageHeader('Tail', 'Committed transactions of one tenant, live over the WebSocket change tail.',
      [h('label.inline', null, 'Tenant', tenant.element), h('label.inline', null, 'Collection', collection), h('label.inline', null, 'From', from), pause, clear]),
    problem,
    panel('Events', [empty, list], { actions: [received, status], className: 'flush' }),
  )

  let stream: TailStream | null = null
  let paused = false
  /** Where a paused tail resumes: the LSN of the last event it showed. */
  let resumeAfter: number | undefined
  let total = 0

  function showStatus(s: TailStatus | { state: 'paused' }): void {
    const text: Record<string, [string, Tone]> = {
      connecting: ['connecting', 'neutral'],
      live: ['live', 'ok'],
      retrying: ['reconnecting', 'warn'],
      stopped: ['stopped', 'neutral'],
      paused: ['paused', 'warn'],
    }
    const [label, tone] = text[s.state] ?? ['?', 'neutral']
    const detail = s.state === 'retrying' ? ` · ${s.reason}; retrying in ${Math.round(s.in_ms / 100) / 10} s`
      : s.state === 'paused' ? ` after LSN ${count(resumeAfter ?? 0)}` : ''
    replaceChildren(status, badge(label, tone), detail === '' ? null : h('span.muted', null, detail))
    status.dataset.state = s.state
  }

  function show(event: TailEvent): void {
    total += 1
    received.textContent = `${count(total)} event${total === 1 ? '' : 's'} · `
    empty.hidden = true
    list.hidden = false
    // A restore carries no row changes: one line says the tenant is now the snapshot's.
    const restored = event.restored === undefined ? [] : [h('tr.event-start.fresh.restored', { dataset: { lsn: String(event.lsn) } },
      h('td.num', null, count(event.lsn)),
      h('td.nowrap', null, timestamp(event.at)),
      h('td', null, badge('restore', 'warn')),
      h('td', { colspan: 3 }, `Restored to snapshot ${event.restored.snapshot} (LSN ${count(event.restored.lsn)}): every row of the tenant is now the snapshot's; read it afresh.`))]
    const fresh = event.changes.map((change, i) => h('tr', { class: i === 0 ? 'event-start fresh' : 'fresh', dataset: { lsn: String(event.lsn) } },
      h('td.num', null, i === 0 ? count(event.lsn) : ''),
      h('td.nowrap', null, i === 0 ? timestamp(event.at) : ''),
      h('td', null, badge(change.op, op_tones[change.op])),
      h('td', null, h('code', null, change.collection)),
      h('td.num', null, valueText(change.key)),
      h('td.row-json', { title: change.row === null ? null : JSON.stringify(change.row, null, 2) }, change.row === null ? h('span.muted', null, '(deleted)') : JSON.stringify(change.row)),
    ))
    rows.prepend(...restored, ...fresh)
    while (rows.children.length > events_shown_max) rows.lastElementChild?.remove()
  }

  function stop(): void {
    stream?.stop()
    stream = null
  }

  /** Connects after `after`, or first asks the server where to start (which also checks the tenant and token in words). */
  async function start(after?: number): Promise<void> {
    stop()
    replaceChildren(problem)
    let startAfter = after
    const filter = collection.value === '' ? null : collection.value
    if (startAfter === undefined) {
      try {
        const page = await ctx.api.tailPage(ctx.tenant.value, { limit: '1' })
        const oldest = page.events[0]?.lsn
        startAfter = from.value === 'oldest' && oldest !== undefined ? oldest - 1 : page.head_lsn
      } catch (error) {
        replaceChildren(problem, errorBox(`Cannot tail ${ctx.tenant.value}: ${describeError(error)}`))
        showStatus({ state: 'stopped' })
        return
      }
    }
    if (paused) return
    stream = new TailStream(ctx.api, {
      tenant: ctx.tenant.value,
      collection: filter,
      after: startAfter,
      onEvent: show,
      onStatus: showStatus,
      onGap: (oldest) => replaceChildren(problem, h('div.callout.warn', null, `The tail fell behind the WAL's retention: events before LSN ${count(oldest)} are gone. It continues from there.`)),
      onError: (error) => replaceChildren(problem, errorBox(`The tail of ${ctx.tenant.value} ended: ${describeError(error)}`)),
      onRevoked: () => ctx.signOut('The server closed the tail: the token was revoked or has expired, or its tenant was deleted (4401). Enter a current token to continue.'),
    })
    stream.start()
  }

  function restartKeepingPlace(): void {
    if (paused) return
    void start(stream?.after)
  }

  pause.addEventListener('click', () => {
    paused = !paused
    pause.textContent = paused ? 'Resume' : 'Pause'
    pause.classList.toggle('primary', paused)
    if (paused) {
      // Keep the place: resume asks for exactly the events after it.
      resumeAfter = stream?.after
      stop()
      showStatus({ state: 'paused' })
    } else {
      void start(resumeAfter)
    }
  })
  clear.addEventListener('click', () => {
    rows.replaceChildren()
    total = 0
    received.textContent = ''
    empty.hidden = false
    list.hidden = true
  })
  collection.addEventListener('change', restartKeepingPlace)
  from.addEventListener('change', () => { if (!paused) void start() })

  async function loadTenant(): Promise<void> {
    const collections = await ctx.api.collections(ctx.tenant.value).catch(() => [])
    replaceChildren(collection, h('option', { value: '' }, 'All collections'), collections.map((c) => h('option', { value: c.name }, c.name)))
    rows.replaceChildren()
    total = 0
    received.textContent = ''
    empty.hidden = false
    list.hidden = true
    resumeAfter = undefined
    if (!paused) await start()
  }
  const stopTenant = ctx.tenant.subscribe(() => void loadTenant())
  list.hidden = true
  void loadTenant()

  return {
    element,
    dispose() {
      stopTenant()
      tenant.dispose()
      stop()
    },
  }
}
