// Cycle search in the dependency graph: strongly connected components (Tarjan's
// algorithm, iterative so a long chain cannot overflow the stack), then, inside one
// component, the shortest path between two transactions over chosen kinds of edge
// (breadth-first). Every cycle lies inside one component, so a search confined to a
// component misses none.
import type { EdgeKind, Step } from './history.js'
import type { DependencyGraph } from './dependency-graph.js'

/** The components of more than one transaction, over edges of `kinds`. */
export function components(graph: DependencyGraph, kinds: ReadonlySet<EdgeKind>): Array<Set<number>> {
  const index = new Map<number, number>()
  const low = new Map<number, number>()
  const onStack = new Set<number>()
  const stack: number[] = []
  const found: Array<Set<number>> = []
  let counter = 0
  for (const root of graph.nodes()) {
    if (index.has(root)) continue
    // Each frame: a node and the successors it has left to visit.
    const frames: Array<{ node: number; next: Iterator<{ to: number }> }> = []
    const enter = (node: number) => {
      index.set(node, counter)
      low.set(node, counter)
      counter += 1
      stack.push(node)
      onStack.add(node)
      frames.push({ node, next: graph.successors(node, kinds) })
    }
    enter(root)
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as (typeof frames)[number]
      const step = frame.next.next()
      if (!step.done) {
        const to = step.value.to
        if (!index.has(to)) enter(to)
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number))
        continue
      }
      frames.pop()
      const parent = frames[frames.length - 1]
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number))
      if (low.get(frame.node) === index.get(frame.node)) {
        const component = new Set<number>()
        for (;;) {
          const member = stack.pop() as number
          onStack.delete(member)
          component.add(member)
          if (member === frame.node) break
        }
        if (component.size > 1) found.push(component)
      }
    }
  }
  return found
}

/** The shortest path from `from` to `to` over edges of `kinds` within `within`, or undefined. */
export function shortestPath(graph: DependencyGraph, from: number, to: number, kinds: ReadonlySet<EdgeKind>, within: ReadonlySet<number>): Step[] | undefined {
  const came = new Map<number, Step>()
  const seen = new Set([from])
  let frontier = [from]
  while (frontier.length > 0) {
    const next: number[] = []
    for (const node of frontier) {
      for (const edge of graph.successors(node, kinds)) {
        if (seen.has(edge.to) || !within.has(edge.to)) continue
        seen.add(edge.to)
        came.set(edge.to, { from: node, to: edge.to, kind: edge.kind, key: edge.key })
        if (edge.to === to) {
          const path: Step[] = []
          for (let at = to; at !== from;) {
            const step = came.get(at) as Step
            path.unshift(step)
            at = step.from
          }
          return path
        }
        next.push(edge.to)
      }
    }
    frontier = next
  }
  return undefined
}
