// The printed report: per workload its figures (median, with the spread of the
// repetitions) and its goals, then one line per goal in a closing summary.
import type { Figure, Goal, WorkloadResult } from './result.js'

function number(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

function figureLine(f: Figure): string {
  const spread = f.samples.length > 1 ? `  (${number(Math.min(...f.samples))} – ${number(Math.max(...f.samples))}, n=${f.samples.length})` : ''
  return `    ${f.label.padEnd(62)} ${number(f.value).padStart(12)} ${f.unit.padEnd(10)}${spread}`
}

export function goalText(g: Goal): string {
  const show = (v: number) => g.unit === '×' ? `${v.toFixed(v < 10 ? 2 : 1)}×` : `${number(v)} ${g.unit}`
  return `${show(g.measured)} (goal ${g.comparison === '>=' ? '≥' : '≤'} ${show(g.goal)})`
}

function goalLine(g: Goal): string {
  return `    ${(g.met ? 'met    ' : 'MISSED ')} ${g.label.padEnd(55)} ${goalText(g)}`
}

export function renderWorkload(r: WorkloadResult): string {
  const head = `${r.id.padEnd(4)} ${r.title}`
  if (r.skipped !== undefined) return `${head}\n    not run: ${r.skipped}\n`
  const lines = [`${head}  [${r.seconds.toFixed(0)} s]`, ...r.figures.map(figureLine), ...r.goals.map(goalLine), ...r.notes.map((n) => `    · ${n}`)]
  return `${lines.join('\n')}\n`
}

export function renderSummary(results: readonly WorkloadResult[]): string {
  const lines = ['goals:']
  for (const r of results) {
    if (r.skipped !== undefined) lines.push(`  ${r.id.padEnd(4)} not run: ${r.skipped}`)
    for (const g of r.goals) lines.push(`  ${r.id.padEnd(4)} ${g.met ? 'met   ' : 'MISSED'} ${g.label.padEnd(45)} ${goalText(g)}`)
  }
  const goals = results.flatMap((r) => r.goals)
  lines.push(`${goals.filter((g) => g.met).length} of ${goals.length} goals met`)
  return `${lines.join('\n')}\n`
}
