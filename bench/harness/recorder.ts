// Collects one workload's figures and goals as it measures them.
import type { Better, Figure, Goal, WorkloadResult } from './result.js'
import { median } from './stats.js'

export class Recorder {
  readonly #figures = new Map<string, Figure>()
  readonly #goals: Goal[] = []
  readonly #notes: string[] = []

  figure(key: string, label: string, unit: string, samples: readonly number[], better: Better = 'higher'): Figure {
    const figure: Figure = { key, label, unit, better, samples: [...samples], value: median(samples) }
    this.#figures.set(key, figure)
    return figure
  }

  value(key: string): number {
    const figure = this.#figures.get(key)
    if (figure === undefined) throw new Error(`no figure '${key}' recorded`)
    return figure.value
  }

  /** A goal on the ratio of two recorded figures: value(numerator) / value(denominator). */
  ratio(label: string, numerator: string, denominator: string, comparison: Goal['comparison'], goal: number): Goal {
    return this.goal(label, this.value(numerator) / this.value(denominator), '×', comparison, goal)
  }

  goal(label: string, measured: number, unit: string, comparison: Goal['comparison'], goal: number): Goal {
    const met = comparison === '>=' ? measured >= goal : measured <= goal
    const entry: Goal = { label, measured, unit, comparison, goal, met }
    this.#goals.push(entry)
    return entry
  }

  note(text: string): void {
    this.#notes.push(text)
  }

  result(id: string, title: string, seconds: number): WorkloadResult {
    return { id, title, figures: [...this.#figures.values()], goals: [...this.#goals], notes: [...this.#notes], seconds }
  }
}
