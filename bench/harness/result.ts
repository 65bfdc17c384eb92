// What a workload reports: figures (medians of repetitions, with the raw samples) and
// goals (a measured ratio or quantity against the goal of docs/performance.md).

export type Better = 'higher' | 'lower'

export interface Figure {
  key: string
  label: string
  unit: string
  better: Better
  /** One value per repetition (warm-up excluded). */
  samples: number[]
  /** The median of the samples: the figure reported. */
  value: number
}

export interface Goal {
  label: string
  measured: number
  /** '×' for a ratio, otherwise the unit of an absolute quantity. */
  unit: string
  comparison: '>=' | '<='
  goal: number
  met: boolean
}

export interface WorkloadResult {
  id: string
  title: string
  figures: Figure[]
  goals: Goal[]
  notes: string[]
  /** Why the workload could not run, when it could not. */
  skipped?: string
  seconds: number
}
