// Progress lines on stderr, only on a terminal, so piped and logged output stays clean:
// `LABEL: [STEP ]DONE of TOTAL (P%) at RATE/s`, redrawn at most every redraw_ms and
// cleared when the work ends. Two sources: a byte stream the command counts itself
// (backup, restore: `progress`), and the storage core's counters of long work, polled
// (verify, compact, restore's verify: `watchProgress`, docs/architecture.md "Progress").
import type { WorkProgress } from '../database/index.js'
import { progress_redraw_ms } from '../limits.js'

const redraw_ms = progress_redraw_ms

export interface Progress {
  /** Counts `bytes` more; redraws when due. */
  add(bytes: number): void
  /** Bytes counted so far. */
  readonly done: number
  /** Clears the line. */
  finish(): void
}

export function progress(label: string, total: number | undefined, stream: NodeJS.WriteStream = process.stderr): Progress {
  const shown = stream.isTTY === true
  const started = Date.now()
  let done = 0
  // When the line was last drawn; -1 once finished.
  let drawn = 0
  return {
    add(bytes) {
      done += bytes
      if (!shown) return
      const now = Date.now()
      if (drawn !== -1 && now - drawn >= redraw_ms) {
        drawn = now
        stream.write(`\r\x1b[K${label}: ${line('', done, total, 'bytes', done / seconds(started, now))}`)
      }
    },
    get done() {
      return done
    },
    finish() {
      if (shown && drawn !== -1) stream.write('\r\x1b[K')
      drawn = -1
    },
  }
}

export interface WatchedProgress {
  /** Polls `read` from now on (what verifyDirectory's and restoreArchive's `watch` take). */
  watch(read: () => WorkProgress | null): void
  /** Stops polling and clears the line. */
  finish(): void
}

/** What each step of the storage core's work is called on the line. */
const step_names: Record<WorkProgress['step'], string> = {
  verify_pages: 'pages',
  verify_space: 'space map',
  verify_wal: 'WAL',
  compact_trees: 'rewriting trees',
  write_pages: 'writing pages',
  move_pages: 'moving pages',
}

/**
 * A line for work the storage core counts: the running step, done of its total and the
 * step's rate; `LABEL Ns` while no step runs (opening, waiting for readers).
 */
export function watchProgress(label: string, stream: NodeJS.WriteStream = process.stderr): WatchedProgress {
  const shown = stream.isTTY === true
  const started = Date.now()
  let timer: NodeJS.Timeout | undefined
  let finished = false
  // The step shown and when and where it was first seen, for its rate.
  let current: { step: string; at: number; done: number } | undefined
  const draw = (read: () => WorkProgress | null) => {
    const now = Date.now()
    const p = read()
    if (p === null) {
      current = undefined
      stream.write(`\r\x1b[K${label} ${Math.floor((now - started) / 1000)}s`)
      return
    }
    // Another step, or the same kind of step begun again (a count that went back).
    if (current?.step !== p.step || p.done < current.done) current = { step: p.step, at: now, done: p.done }
    const rate = now > current.at ? (p.done - current.done) / seconds(current.at, now) : undefined
    stream.write(`\r\x1b[K${label}: ${line(`${step_names[p.step]} `, p.done, Math.max(p.total, p.done), p.unit, rate)}`)
  }
  return {
    watch(read) {
      if (!shown || timer !== undefined || finished) return
      draw(read)
      timer = setInterval(() => draw(read), redraw_ms)
      timer.unref()
    },
    finish() {
      if (timer !== undefined) clearInterval(timer)
      if (shown && !finished) stream.write('\r\x1b[K')
      finished = true
    },
  }
}

/** `[STEP ]DONE of TOTAL (P%) at RATE/s`, bytes in MiB, other units counted. */
function line(step: string, done: number, total: number | undefined, unit: WorkProgress['unit'], rate: number | undefined): string {
  // Bytes carry their unit on both sides (1.0 MiB of 2.0 MiB), counts once (12 of 40 pages).
  const first = total === undefined || unit === 'bytes' ? amount(done, unit) : String(done)
  const of = total === undefined ? '' : ` of ${amount(total, unit)} (${total === 0 ? 100 : Math.floor((done / total) * 100)}%)`
  return `${step}${first}${of}${rate === undefined ? '' : ` at ${amount(rate, unit)}/s`}`
}

function amount(n: number, unit: WorkProgress['unit']): string {
  return unit === 'bytes' ? `${(n / (1024 * 1024)).toFixed(1)} MiB` : `${Math.round(n)} ${unit}`
}

function seconds(from: number, to: number): number {
  return Math.max((to - from) / 1000, 0.001)
}
