// The anomaly classifier for dependency cycles (Adya; Elle's names):
//   G0        a cycle of ww edges only (write cycle)
//   G1c       a cycle of ww and wr edges, at least one wr (circular information flow)
//   G-single  a cycle with exactly one rw edge (read skew; a lost update is one too)
//   G2        a cycle with two or more rw edges (write skew)
// Snapshot isolation forbids the first three and ALLOWS G2: two transactions may each
// read what the other overwrites, both commit, and no serial order explains them.
// G2 cycles are returned apart, as `allowed`, never as anomalies.
import type { AllowedCycle, Anomaly, EdgeKind, Step } from './history.js'
import type { DependencyGraph } from './dependency-graph.js'
import { components, shortestPath } from './cycles.js'

const ww: ReadonlySet<EdgeKind> = new Set(['ww'])
const wwWr: ReadonlySet<EdgeKind> = new Set(['ww', 'wr'])
const all: ReadonlySet<EdgeKind> = new Set(['ww', 'wr', 'rw'])

/** At most this many G-single cycles are reported per component (one proves the class; a broken engine makes thousands). */
const g_single_per_component_max = 5

export function cycleAnomalies(graph: DependencyGraph): { anomalies: Anomaly[]; allowed: AllowedCycle[] } {
  const anomalies: Anomaly[] = []
  const allowed: AllowedCycle[] = []

  for (const component of components(graph, ww)) {
    const start = component.values().next().value as number
    const back = firstEdgeBack(graph, start, ww, component)
    if (back !== undefined) anomalies.push({ class: 'G0', ...describe(back) })
  }

  for (const component of components(graph, wwWr)) {
    const cycle = cycleThrough(graph, component, 'wr', wwWr)
    if (cycle !== undefined) anomalies.push({ class: 'G1c', ...describe(cycle) })
  }

  for (const component of components(graph, all)) {
    let singles = 0
    let rwSeen: Step | undefined
    for (const edge of edgesOfKind(graph, component, 'rw')) {
      // An rw edge doubled by a ww or wr one closes G0 or G1c cycles, reported above.
      if (graph.edges.get(edge.from)?.get(edge.to)?.size !== 1) continue
      rwSeen ??= edge
      const back = shortestPath(graph, edge.to, edge.from, wwWr, component)
      if (back === undefined) continue
      anomalies.push({ class: 'G-single', ...describe([edge, ...back]) })
      if ((singles += 1) >= g_single_per_component_max) break
    }
    if (singles === 0 && rwSeen !== undefined) {
      const back = shortestPath(graph, rwSeen.to, rwSeen.from, all, component)
      if (back !== undefined) allowed.push({ class: 'G2', ...describe([rwSeen, ...back]) })
    }
  }
  return { anomalies, allowed }
}

/** A cycle through `start` over `kinds` within `component` (one exists: it is strongly connected). */
function firstEdgeBack(graph: DependencyGraph, start: number, kinds: ReadonlySet<EdgeKind>, component: ReadonlySet<number>): Step[] | undefined {
  for (const edge of graph.successors(start, kinds)) {
    if (!component.has(edge.to)) continue
    const back = shortestPath(graph, edge.to, start, kinds, component)
    if (back !== undefined) return [{ from: start, to: edge.to, kind: edge.kind, key: edge.key }, ...back]
  }
  return undefined
}

/** A cycle over `kinds` that uses at least one edge of `kind`, or undefined. */
function cycleThrough(graph: DependencyGraph, component: ReadonlySet<number>, kind: EdgeKind, kinds: ReadonlySet<EdgeKind>): Step[] | undefined {
  for (const edge of edgesOfKind(graph, component, kind)) {
    const back = shortestPath(graph, edge.to, edge.from, kinds, component)
    if (back !== undefined) return [edge, ...back]
  }
  return undefined
}

/** Edges that carry `kind` (whatever else they carry) between members of `component`. */
function* edgesOfKind(graph: DependencyGraph, component: ReadonlySet<number>, kind: EdgeKind): Generator<Step> {
  for (const from of component) {
    for (const [to, kinds] of graph.edges.get(from) ?? []) {
      const key = kinds.get(kind)
      if (key !== undefined && component.has(to)) yield { from, to, kind, key }
    }
  }
}

function describe(cycle: Step[]): { explanation: string; txns: number[]; cycle: Step[] } {
  const rw = cycle.filter((step) => step.kind === 'rw').length
  const text = cycle.map((s) => `T${s.from} -${s.kind}(key ${s.key})-> `).join('') + `T${cycle[0]?.from}`
  return { explanation: `${text} (${cycle.length} edges, ${rw} rw)`, txns: cycle.map((s) => s.from), cycle }
}
