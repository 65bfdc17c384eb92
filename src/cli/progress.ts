// A progress line on stderr for commands that move many bytes (backup, restore): bytes
// done of the total with a rate, redrawn at most a few times a second, only on a
// terminal, so piped and logged output stays clean.
const redraw_ms = 200

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
  let drawn = 0
  const draw = () => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001)
    const of = total === undefined ? '' : ` of ${mib(total)} (${total === 0 ? 100 : Math.floor((done / total) * 100)}%)`
    stream.write(`\r\x1b[K${label}: ${mib(done)}${of} at ${mib(done / seconds)}/s`)
  }
  return {
    add(bytes) {
      done += bytes
      if (!shown) return
      const now = Date.now()
      if (now - drawn >= redraw_ms) {
        drawn = now
        draw()
      }
    },
    get done() {
      return done
    },
    finish() {
      if (shown) stream.write('\r\x1b[K')
    },
  }
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}
