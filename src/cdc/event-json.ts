// An event as the WebSocket tail sends it (docs/api.md, "Change tail": one JSON text
// message per event): its JSON text in UTF-8, made once per event object. Tails at the
// head share their event objects (recent-commit.ts), so N consumers of one commit
// cost one JSON.stringify and one UTF-8 encoding, and each socket is handed the same
// bytes. Kept as long as the event is; the bytes must never be written to.
import type { TailEvent } from './event.js'

const encoded = new WeakMap<TailEvent, Buffer>()

export function eventJson(event: TailEvent): Buffer {
  let bytes = encoded.get(event)
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(event), 'utf8')
    encoded.set(event, bytes)
  }
  return bytes
}
