// One of the newest commits as every live tail at the head sees it: its payload, the
// payload decoded, and its event for each (tenant, collection) some tail asked for,
// each made on first use and then shared. So N tails cost one decode and one event
// per commit and filter, not N (docs/architecture.md, "The change feed"); the events are
// shared objects, which is why consumers must not modify them.
import { decodeCommit, type Frame } from '../txn/index.js'
import { decodeEvent, type TailEvent } from './event.js'

export class RecentCommit {
  readonly lsn: number
  /** The exact bytes given to the engine. */
  readonly payload: Buffer
  #frame: Frame | undefined
  #rowBytes = -1
  /** By tenant, then by collection ('' for every collection); null: no event there. */
  #events: Map<string, Map<string, TailEvent | null>> | undefined

  constructor(lsn: number, payload: Buffer) {
    this.lsn = lsn
    this.payload = payload
  }

  /** The payload decoded, once. */
  get frame(): Frame {
    this.#frame ??= { lsn: this.lsn, commit: decodeCommit(this.payload) }
    return this.#frame
  }

  /** The stored size of the commit's writes (see readEvents), once. */
  get rowBytes(): number {
    if (this.#rowBytes < 0) this.#rowBytes = rowBytes(this.frame)
    return this.#rowBytes
  }

  /** decodeEvent of this commit for `tenant` (and `collection`), made once per pair and shared. */
  event(tenant: string, collection: string | undefined): TailEvent | null {
    this.#events ??= new Map()
    let byCollection = this.#events.get(tenant)
    if (byCollection === undefined) {
      byCollection = new Map()
      this.#events.set(tenant, byCollection)
    }
    const name = collection ?? ''
    let event = byCollection.get(name)
    if (event === undefined) {
      event = decodeEvent(this.frame, tenant, collection)
      byCollection.set(name, event)
    }
    return event
  }
}

/** The stored size of a frame's writes: a cheap stand-in for the size of its event. */
export function rowBytes(frame: Frame): number {
  let bytes = 0
  for (const op of frame.commit.ops) {
    if (op.op === 'put') bytes += op.key.length + op.value.length
    else if (op.op === 'delete') bytes += op.key.length
  }
  return bytes
}
