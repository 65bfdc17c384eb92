// A feed of several collections follows the whole tenant and keeps only their changes
// (docs/client.md, "The change feed"), the same for a server's feed and an embedded one.
import type { TailEvent } from '../http/wire/tail.js'

/** The changes of `event` to `wanted`; undefined when none (a restore reaches every collection). */
export function filtered(event: TailEvent, wanted: ReadonlySet<string> | undefined): TailEvent | undefined {
  if (wanted === undefined || event.restored !== undefined) return event
  const changes = event.changes.filter((c) => wanted.has(c.collection))
  return changes.length === 0 ? undefined : { ...event, changes }
}
