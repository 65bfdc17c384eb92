// An event as the WebSocket tail sends it (docs/api.md, "Change tail": one JSON text
// message per event). Tails at the head share their event objects (recent-commit.ts),
// and such a shared event keeps its JSON text, made on first use, in a hidden property
// of its own: N consumers of one commit cost one JSON.stringify. The text stays a
// string: each socket's write encodes it to UTF-8 in C++ with the other strings of its
// batch, which costs less than a Buffer object per event (P10 measured both), and far
// less than a WeakMap of encodings, whose entries cost every garbage collection.
import type { TailEvent } from './event.js'

/** Holds a shared event's text: null until made; absent on an event no one shares. */
const text = Symbol('tail event JSON')

type Encodable = TailEvent & { [text]?: string | null }

/** Marks `event` (a tail's shared event, or null) as one whose text is kept once made. */
export function shared<T extends TailEvent | null>(event: T): T {
  // Not enumerable: invisible to JSON.stringify, Object.keys and comparisons.
  if (event !== null) Object.defineProperty(event, text, { value: null, writable: true })
  return event
}

/** JSON.stringify(event), once per shared event. */
export function eventText(event: TailEvent): string {
  const kept = (event as Encodable)[text]
  if (kept !== undefined && kept !== null) return kept
  const made = JSON.stringify(event)
  if (kept === null) (event as Encodable)[text] = made
  return made
}
