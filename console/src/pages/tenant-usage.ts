// A tenant's usage on the Tenants page (docs/operations.md, "The operator console"):
// what its statements used since the server started and what it holds, its limits
// (its own settings over the server's defaults), and trends drawn from the usage
// route polled about once a second: the rates between two polls (rows examined and
// written, commits, budget wait). With a token that may change limits, a form sets or
// clears one (the operation `limit`, a write-mode button), showing the server's
// refusal in its words.
import { describeError } from '../api/client.js'
import type { TenantLimitsBody, TenantOp, TenantUsageBody } from '../api/types.js'
import type { Context } from '../context.js'
import { isService } from '../state/access.js'
import { Poller } from '../state/poller.js'
import { h, replaceChildren } from '../ui/dom.js'
import { bytes, count } from '../ui/format.js'
import { errorBox, keyValues, panel } from '../ui/panel.js'
import { table } from '../ui/table.js'
import { toast } from '../ui/toast.js'
import { trendChart, type TrendChart } from '../ui/trend-chart.js'
import type { WriteButtons } from '../ui/write-button.js'

type LimitName = keyof TenantLimitsBody

/** Every limit, in the order docs/operations.md lists them. */
const limit_names = [
  'storage_bytes', 'storage_rows', 'commits_per_s', 'commits_per_s_reserved', 'write_bytes_per_s', 'write_bytes_per_s_reserved',
  'rows_examined_per_s', 'rows_examined_per_s_reserved', 'statement_time_ms', 'statement_rows_examined', 'statement_memory_bytes',
] as const satisfies readonly LimitName[]
// A limit the server adds and this list lacks does not build.
const every_limit_listed: [Exclude<LimitName, typeof limit_names[number]>] extends [never] ? true : never = true
void every_limit_listed

const poll_ms = 1000
/** Samples the charts keep: the last five minutes at one a second. */
const samples_max = 300

const blue = '#6ea8fe'
const green = '#4cc38a'
const amber = '#e3b341'
const perSecond = (v: number) => `${v < 10 ? v.toFixed(1) : count(Math.round(v))}/s`
const msPerSecond = (v: number) => `${count(Math.round(v))} ms/s`

/** The rates the charts draw, each a column over the same seconds `t`. */
const rate_keys = ['rows_examined', 'rows_written', 'commits', 'budget_wait_ms'] as const

export interface UsagePanel {
  element: HTMLElement
  dispose(): void
}

export function usagePanel(ctx: Context, tenant: string, buttons: WriteButtons): UsagePanel {
  const figures = h('div.usage-figures')
  const limits = h('div.usage-limits')
  const charts: TrendChart[] = [
    trendChart('Rows per second', [
      { key: 'rows_examined', label: 'examined', colour: blue, format: perSecond },
      { key: 'rows_written', label: 'written', colour: green, format: perSecond },
    ]),
    trendChart('Commits per second', [{ key: 'commits', label: 'commits', colour: blue, format: perSecond }]),
    trendChart('Budget wait', [{ key: 'budget_wait_ms', label: 'waited', colour: amber, format: msPerSecond }], 'time statements waited for the tenant\'s budgets'),
  ]
  const columns: Record<string, number[]> = { t: [], ...Object.fromEntries(rate_keys.map((k) => [k, []])) }
  let last: { at_s: number; usage: TenantUsageBody } | null = null
  // Only the service token may change a tenant's limits (an admin token may not raise its own).
  const form = isService(ctx.access.value) ? limitForm(ctx, tenant, buttons, () => poller.now()) : null
  const element = panel('Usage', h('div.usage', null, figures, h('div.trends.usage-trends', null, charts.map((c) => c.element)), limits, form), {
    subtitle: 'since the server started, every thread\'s; trends from a poll a second',
    className: 'usage-panel',
  })

  const poller = new Poller({
    every_ms: poll_ms,
    run: async () => {
      // The page moved on (another tenant, another page): stop.
      if (!element.isConnected) return dispose()
      let usage: TenantUsageBody
      try {
        usage = await ctx.api.usage(tenant)
      } catch (error) {
        replaceChildren(figures, errorBox(`Cannot read the usage: ${describeError(error)}`))
        throw error
      }
      const at_s = Date.now() / 1000
      if (last !== null && at_s > last.at_s) {
        const seconds = at_s - last.at_s
        columns.t!.push(at_s)
        for (const key of rate_keys) columns[key]!.push(Math.max(0, (usage[key] - last.usage[key]) / seconds))
        for (const column of Object.values(columns)) if (column.length > samples_max) column.splice(0, column.length - samples_max)
        for (const chart of charts) chart.update(columns)
      }
      last = { at_s, usage }
      showFigures(figures, usage)
      showLimits(limits, usage)
    },
  })
  // Once the panel is in the page (showTenant puts it there right after this returns).
  const start = setTimeout(() => poller.start(), 0)
  let disposed = false
  function dispose(): void {
    if (disposed) return
    disposed = true
    clearTimeout(start)
    poller.stop()
    for (const chart of charts) chart.destroy()
  }
  return { element, dispose }
}

function figure(key: string, text: string): HTMLElement {
  return h('span', { dataset: { usage: key } }, text)
}

function showFigures(into: HTMLElement, u: TenantUsageBody): void {
  const refused = u.rate_limited + u.quota_exceeded + u.statement_limit
  replaceChildren(into, keyValues([
    ['Statements', figure('statements', count(u.statements)), true],
    ['Rows examined', figure('rows_examined', count(u.rows_examined)), true],
    ['Rows written', figure('rows_written', count(u.rows_written)), true],
    ['Bytes written', figure('bytes_written', bytes(u.bytes_written)), true],
    ['Commits', figure('commits', count(u.commits)), true],
    ['Statement time', figure('statement_ms', `${count(Math.round(u.statement_ms))} ms`), true],
    ['Budget wait', figure('budget_wait_ms', `${count(Math.round(u.budget_wait_ms))} ms`), true],
    ['Refused', figure('refused', refused === 0 ? '0' : `${count(refused)} (rate limited ${count(u.rate_limited)}, over quota ${count(u.quota_exceeded)}, statement limit ${count(u.statement_limit)})`), true],
    ['Holds', figure('live', `${count(u.live_rows)} rows, ${bytes(u.live_bytes)}`), true],
  ]))
}

function showLimits(into: HTMLElement, u: TenantUsageBody): void {
  const set = limit_names.filter((name) => u.limits[name] !== undefined)
  replaceChildren(into, table<LimitName>([
    { label: 'Limit', cell: (name) => h('code', null, name) },
    { label: 'Applies', align: 'num', cell: (name) => count(u.limits[name] ?? 0) },
    { label: 'From', cell: (name) => (u.own_limits[name] !== undefined ? 'the tenant\'s own' : h('span.muted', null, 'the server\'s default')) },
  ], set, { empty: 'No limit applies: neither the tenant nor the server sets one.', rowAttributes: (name) => ({ dataset: { limit: name } }) }))
}

/** Set or clear one limit: a name, a whole number, and the server's answer. */
function limitForm(ctx: Context, tenant: string, buttons: WriteButtons, changed: () => void): HTMLElement {
  const name = h('select.limit-name', { 'aria-label': 'Limit' }, limit_names.map((n) => h('option', { value: n }, n)))
  const value = h('input.limit-value', { type: 'number', min: '1', step: '1', placeholder: 'a whole number', 'aria-label': 'Value' })
  const message = h('div.limit-message')
  // What was typed goes as a number when it is one, else as typed: the server refuses it in its words.
  const typed = (): number | string => {
    const text = value.value.trim()
    return text !== '' && Number.isFinite(Number(text)) ? Number(text) : text
  }
  const send = async (setting: number | string | null) => {
    const limit = name.value as LimitName
    try {
      const result = await ctx.api.ops(tenant, { op: 'limit', limits: { [limit]: setting } } as TenantOp)
      replaceChildren(message)
      toast(result.message, 'ok')
      changed()
    } catch (error) {
      replaceChildren(message, errorBox(`The server refused: ${describeError(error)}`))
    }
  }
  return h('div.limit-form', null,
    h('div.form-row', null, name, value,
      buttons.button({ label: 'Set limit', small: true, onClick: () => send(typed()) }),
      buttons.button({ label: 'Clear', small: true, onClick: () => send(null) })),
    h('p.help', null, 'Clear returns the limit to the server\'s default. Rates are per second; sizes in bytes; times in milliseconds.'),
    message)
}
