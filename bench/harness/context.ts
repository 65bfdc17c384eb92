// What every workload is given: the run's settings, scratch space, progress, and the
// repetition loop that interleaves an engine with its anchors.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Progress } from './progress.js'

export interface RunSettings {
  quick: boolean
  /** Measured repetitions per figure (after one warm-up round). */
  reps: number
  /** Directory under which every engine gets its own scratch directory. */
  base: string
}

export class BenchContext {
  readonly quick: boolean
  readonly reps: number
  readonly progress: Progress
  readonly root: string
  #next = 0
  readonly #shared = new Map<string, Promise<unknown>>()
  readonly #closers: Array<() => unknown> = []

  constructor(settings: RunSettings, progress: Progress) {
    this.quick = settings.quick
    this.reps = settings.reps
    this.progress = progress
    this.root = mkdtempSync(join(settings.base, 'tenantdb-bench-'))
  }

  /** A fresh empty directory of its own, so no two engines share files. */
  scratch(name: string): string {
    const dir = join(this.root, `${String(this.#next++).padStart(3, '0')}-${name}`)
    mkdirSync(dir, { recursive: true })
    return dir
  }

  /** One size for a full run, a smaller one for --quick. */
  size(full: number, quick: number): number {
    return this.quick ? quick : full
  }

  /**
   * One warm-up round, then `reps` measured rounds; each round runs every contender
   * once, alternating the order so neither side always runs right after the other.
   * Returns each contender's samples (warm-up excluded).
   */
  async rounds<K extends string>(contenders: Record<K, (round: number) => Promise<number> | number>): Promise<Record<K, number[]>> {
    const keys = Object.keys(contenders) as K[]
    const samples = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>
    for (let round = 0; round <= this.reps; round += 1) {
      const order = round % 2 === 0 ? keys : [...keys].reverse()
      for (const key of order) {
        this.progress.step(`${round === 0 ? 'warm-up' : `rep ${round}/${this.reps}`}: ${key}`)
        const value = await contenders[key](round)
        if (round > 0) samples[key].push(value)
      }
    }
    return samples
  }

  /**
   * A fixture several workloads read (a loaded dataset), made once per run. Only
   * read-only workloads share one; a workload that changes data makes its own.
   */
  shared<T>(name: string, make: () => Promise<T>, close: (value: T) => unknown): Promise<T> {
    let made = this.#shared.get(name) as Promise<T> | undefined
    if (made === undefined) {
      made = make()
      made.then((value) => this.#closers.push(() => close(value)), () => undefined)
      this.#shared.set(name, made)
    }
    return made
  }

  async dispose(): Promise<void> {
    for (const close of this.#closers.reverse()) await close()
    rmSync(this.root, { recursive: true, force: true })
  }
}
