// The commits of one engine, from the call that makes one until it settles.
//
// A commit made while none is in flight is handed to the storage core at once: the
// sync thread is idle, and the commit goes to its fsync without waiting for anything.
// One made while others are in flight is queued here, and everything queued during a
// turn of the event loop (the commits of each request the turn read, or those that a
// group's completions set going) is handed over together at the end of the turn
// (setImmediate), in the order of the calls, in one call of the binding. Handed over
// one by one, each of them found the sync thread asleep whenever the group before had
// just been written: the first woke it and went to its fsync alone or nearly, while
// the turn queued the rest behind it, so concurrent requests grouped by what one
// fsync's duration let through (one or two commits each when the event loop was busy).
// Handed over together, they are taken together and share one fsync
// (docs/performance.md, "Writes over HTTP that group"). Either way the order of the
// calls is the order the engine applies them in, so the committer's validation order
// is still the LSN order; a call whose place in that order matters (a primary's
// frame, the switch of mode, close) hands the queue over first.
//
// Results come back through one callback per group commit (native/src/completions.rs)
// instead of a promise of the binding's own per commit: `settle`, by id.
import { setImmediate } from 'node:timers'
import { toEngineError } from './engine-error.js'

interface Waiter {
  resolve: (lsn: number) => void
  reject: (err: unknown) => void
}

/**
 * Gives the binding the commits with ids `first`, `first + 1`, … and these payloads, in
 * order and at once. Throws as the binding does (a closed or stopped engine): then none
 * was queued.
 */
export type PushCommits = (first: number, payloads: Buffer[]) => void

export class CommitQueue {
  readonly #waiting = new Map<number, Waiter>()
  #next_id = 0
  /**
   * The payloads made this turn and not yet given to the binding, in order; their ids
   * follow one another from `#first` (`now` hands them over before it takes an id).
   */
  #payloads: Buffer[] = []
  #first = 0
  /** A hand-over is scheduled for the end of this turn. */
  #scheduled = false
  readonly #hand_over = () => {
    this.#scheduled = false
    this.flush()
  }

  /** Set once the binding's engine is open (it is given `settle` when opened). */
  push: PushCommits = () => { throw new Error('the engine is not open') }
  /** Commits one payload on this thread, durably, and returns its LSN (`commitSync`). */
  pushSync: (id: number, payload: Buffer) => number = () => { throw new Error('the engine is not open') }
  /** Called before any commit's promise settles (the head snapshot is stale). */
  onSettle: () => void = () => {}
  /** Settles when nothing is waiting (close waits for every queued commit). */
  #drained: { promise: Promise<void>; resolve: () => void } | undefined

  /**
   * Hands `payload` to the binding now when no commit is in flight, else queues it for
   * the end of this turn; resolves with its LSN once durable.
   */
  add(payload: Buffer): Promise<number> {
    const id = this.#next_id++
    if (this.#waiting.size === 0) {
      try {
        this.push(id, [payload])
      } catch (err) {
        return Promise.reject(toEngineError(err))
      }
      return this.#wait(id)
    }
    if (this.#payloads.length === 0) this.#first = id
    this.#payloads.push(payload)
    if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#hand_over)
    }
    return this.#wait(id)
  }

  /**
   * Commits `payload` on this thread, durable when this returns with its LSN
   * (docs/architecture.md, "Synchronous commits"), after handing over the commits
   * queued so far, which the binding writes first. Its completion still comes through
   * `settle`, in LSN order with every other commit's, and runs `delivered` then (the
   * change feed hears of it in order). Throws as the binding does; `delivered` never
   * runs then.
   */
  addSync(payload: Buffer, delivered: (lsn: number) => void): number {
    this.flush()
    const id = this.#next_id++
    this.#waiting.set(id, { resolve: delivered, reject: () => {} })
    try {
      return this.pushSync(id, payload)
    } catch (err) {
      this.#waiting.delete(id)
      this.#checkDrained()
      throw toEngineError(err)
    } finally {
      // The head moved (this commit, or commits written before it in its batch): a
      // read right after must see it, before `settle` comes.
      this.onSettle()
    }
  }

  /**
   * Hands the commits queued so far to the binding now, in order: at the end of the
   * turn, or before a call that must come after them. A payload the binding finds
   * malformed settles with its error; when the binding takes none (a closed or stopped
   * engine), each rejects.
   */
  flush(): void {
    const payloads = this.#payloads
    if (payloads.length === 0) return
    this.#payloads = []
    try {
      this.push(this.#first, payloads)
    } catch (err) {
      const error = toEngineError(err)
      for (let i = 0; i < payloads.length; i += 1) this.#reject(this.#first + i, error)
    }
  }

  /**
   * `call` with a new id, now, after the queue is handed over (a primary's frame):
   * settled through `settle` as a commit is. Rejects with what `call` throws.
   */
  now(call: (id: number) => void): Promise<number> {
    this.flush()
    const id = this.#next_id++
    try {
      call(id)
    } catch (err) {
      return Promise.reject(toEngineError(err))
    }
    return this.#wait(id)
  }

  /** `pairs` is `[id, lsn, …]`; `lsn < 0` takes the next of `errors`. */
  readonly settle = (pairs: Float64Array, errors: Error[] | null): void => {
    this.onSettle()
    let failed = 0
    for (let i = 0; i < pairs.length; i += 2) {
      const id = pairs[i] as number
      const lsn = pairs[i + 1] as number
      const error = lsn < 0 ? errors?.[failed++] : undefined
      const waiter = this.#waiting.get(id)
      if (waiter === undefined) continue
      this.#waiting.delete(id)
      if (lsn >= 0) waiter.resolve(lsn)
      else waiter.reject(toEngineError(error))
    }
    this.#checkDrained()
  }

  drained(): Promise<void> {
    if (this.#waiting.size === 0) return Promise.resolve()
    if (this.#drained === undefined) {
      let resolve!: () => void
      const promise = new Promise<void>((r) => { resolve = r })
      this.#drained = { promise, resolve }
    }
    return this.#drained.promise
  }

  #wait(id: number): Promise<number> {
    return new Promise((resolve, reject) => { this.#waiting.set(id, { resolve, reject }) })
  }

  #reject(id: number, err: unknown): void {
    const waiter = this.#waiting.get(id)
    this.#waiting.delete(id)
    waiter?.reject(err)
    this.#checkDrained()
  }

  #checkDrained(): void {
    if (this.#waiting.size === 0 && this.#drained !== undefined) {
      this.#drained.resolve()
      this.#drained = undefined
    }
  }
}
