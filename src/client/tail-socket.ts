// One WebSocket session of the change tail (docs/api.md, "Change tail"): the events
// it received, in order, then how it ended. Only the standard WebSocket interface
// (browsers, Deno, Node 22's global, the `ws` package), so a refused upgrade is not
// seen as its HTTP answer: it is a session that never opened (tail.ts then asks the
// same question as a poll, which answers in words).
import type { TailEvent } from '../http/wire/tail.js'

/** The standard WebSocket constructor, as far as the tail uses it. */
export type WebSocketConstructor = new (url: string) => WebSocketLike

export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onerror: ((event: unknown) => void) | null
  onclose: ((event: { code: number; reason: string }) => void) | null
  close(code?: number, reason?: string): void
}

export interface SocketEnd {
  /** Whether the upgrade succeeded. */
  opened: boolean
  code: number
  reason: string
  /** The client closed it itself: it held more undelivered events than it keeps. */
  paused: boolean
}

/** Events received and not yet delivered, past which the session is closed (and resumed once they are delivered): a WebSocket cannot be paused. */
export const socket_queue_max = 2_000

/** Yields the session's events in the order they came; returns how it ended. Closes the socket when the caller stops early or `signal` aborts. `opened` is called when the upgrade succeeds. */
export async function* socketSession(WebSocketClass: WebSocketConstructor, url: string, signal: AbortSignal, queue_max = socket_queue_max, opened?: () => void): AsyncGenerator<TailEvent, SocketEnd> {
  const queue: TailEvent[] = []
  let end: SocketEnd | undefined
  let open = false
  let paused = false
  let wake: (() => void) | undefined
  const notify = () => { const w = wake; wake = undefined; w?.() }
  const socket = new WebSocketClass(url)
  const finish = (code: number, reason: string) => { end ??= { opened: open, code, reason, paused }; notify() }
  socket.onopen = () => { open = true; opened?.() }
  socket.onmessage = (message) => {
    // Once paused, what still arrives before the close is dropped: the next session
    // resumes after the last event kept.
    if (end !== undefined || paused) return
    let event: TailEvent
    try {
      if (typeof message.data !== 'string') throw new Error('a binary message')
      event = JSON.parse(message.data) as TailEvent
      if (typeof event.lsn !== 'number' || !Array.isArray(event.changes)) throw new Error('a message that is no event')
    } catch (err) {
      // What was received before it stays good; the session resumes after it.
      finish(1002, (err as Error).message)
      socket.close(1000)
      return
    }
    queue.push(event)
    if (queue.length > queue_max && !paused) { paused = true; socket.close(1000, 'resuming later') }
    notify()
  }
  socket.onerror = () => {}
  socket.onclose = (close) => finish(close.code, close.reason)
  const aborted = () => notify()
  signal.addEventListener('abort', aborted)
  try {
    for (;;) {
      const event = queue.shift()
      if (event !== undefined) { yield event; continue }
      if (end !== undefined) return { ...end, paused }
      if (signal.aborted) throw signal.reason
      await new Promise<void>((resolve) => { wake = resolve })
    }
  } finally {
    signal.removeEventListener('abort', aborted)
    socket.onmessage = null
    socket.onopen = null
    socket.onclose = null
    if (end === undefined) socket.close(1000, 'the consumer stopped')
  }
}
