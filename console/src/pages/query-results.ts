// A query's answer: the plan hint (which access path the planner chose), the counts,
// and the rows as a table. Writes say how many rows they touched and the commit LSN;
// an atomic block shows each statement's result.
import type { Plan, QueryResult } from '../api/types.js'
import { h } from '../ui/dom.js'
import { count } from '../ui/format.js'
import { badge } from '../ui/panel.js'
import { valueTable } from '../ui/table.js'

/** The plan hint in words: what the access means for the cost of the query. */
export function planText(plan: Plan): string {
  switch (plan.access) {
    case 'primary': return `primary key lookup on ${plan.collection}`
    case 'index': return `index ${plan.index ?? '?'} on ${plan.collection}`
    case 'scan': return `full scan of ${plan.collection}`
  }
}

export function queryResultView(result: QueryResult, roundTripMs: number): HTMLElement {
  const isWrite = result.columns.length === 1 && result.columns[0] === 'affected' && result.lsn !== undefined
  const facts: Array<Node | string> = []
  if (result.plan !== undefined) {
    facts.push(h('span.plan', { dataset: { access: result.plan.access } },
      h('span.fact-label', null, 'Plan'), badge(result.plan.access, result.plan.access === 'scan' ? 'warn' : 'accent'), h('span', null, planText(result.plan))))
  }
  if (isWrite) facts.push(h('span.fact', null, `${count(Number(result.rows[0]?.[0] ?? 0))} rows affected`))
  else facts.push(h('span.fact', null, `${count(result.rows.length)} row${result.rows.length === 1 ? '' : 's'}`))
  if (result.stats !== undefined) facts.push(h('span.fact', null, `${count(result.stats.rows_examined)} examined`), h('span.fact', null, `${result.stats.elapsed_ms} ms on the server`))
  facts.push(h('span.fact.muted', null, `${Math.round(roundTripMs)} ms round trip`))
  if (result.lsn !== undefined) facts.push(h('span.fact', null, `committed at LSN ${count(result.lsn)}`))

  return h('div.result', null,
    h('div.result-facts', null, facts),
    result.truncated === true ? h('div.callout.warn', null, `Only the first ${count(result.rows.length)} rows are shown (the response limit); narrow the query with where or take.`) : null,
    result.results !== undefined && result.results.length > 1
      ? result.results.map((r, i) => h('div.statement', null, h('h3', null, `Statement ${i + 1}`), valueTable(r.columns, r.rows)))
      : valueTable(result.columns, result.rows, { empty: 'The query returned no rows.' }),
  )
}
