// What a change feed is doing, for a UI (docs/client.md, "The change feed"): the
// feed reports each change of state through TailOptions.onStatus, once per change.

export type TailStatus =
  /** Opening a connection: at the start and after each wait. */
  | { state: 'connecting'; url: string }
  /** A WebSocket is open: events come as they commit. */
  | { state: 'live'; url: string }
  /** A long poll answered: events come as they commit, one poll after another. */
  | { state: 'long-polling'; url: string }
  /** The connection ended or failed and the feed waits `in_ms` before the next; `reason` says why. */
  | { state: 'retrying'; reason: string; in_ms: number }

/** Calls `listener` with a status unless it is the one reported last (a long poll's next page is not news). */
export function statusReporter(listener: ((status: TailStatus) => void) | undefined): { report(status: TailStatus): void; readonly last: TailStatus | undefined } {
  let last: TailStatus | undefined
  let lastKey = ''
  return {
    report(status) {
      const key = JSON.stringify(status)
      if (key === lastKey) return
      last = status
      lastKey = key
      listener?.(status)
    },
    get last() { return last },
  }
}
