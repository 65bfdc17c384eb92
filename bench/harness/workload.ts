// A workload of docs/performance.md: measures itself and its anchors into a Recorder.
import type { BenchContext } from './context.js'
import type { Recorder } from './recorder.js'

export interface Workload {
  /** 'P1' … 'P13'. */
  id: string
  title: string
  run(ctx: BenchContext, rec: Recorder): Promise<void>
}

/** Thrown by a workload that cannot run here; the reason is printed in its place. */
export class Unavailable extends Error {}
