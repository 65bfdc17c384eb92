// One of the newest commits as every live tail at the head sees it: its payload, and
// its event for each (tenant, collection) some tail asked for, each made on first use
// and then shared. So N tails cost one decode and one event per commit and filter, not
// N (docs/architecture.md, "The change feed"); the events are shared objects, which is
// why consumers must not modify them. The decoded operations are not kept (a second
// filter decodes again): kept, their many small buffers cost every garbage collection
// while the commit stays here.
import { decodeCommit, type Frame } from '../txn/index.js'
import { shared } from './event-text.js'
import { decodeEvent, type TailEvent } from './event.js'

export class RecentCommit {
  readonly lsn: number
  /** The exact bytes given to the engine. */
  readonly payload: Buffer
  #rowBytes = -1
  // The events made so far, by filter: the first in fields (one filter is the common
  // case, and costs no collection), any others in a list.
  #tenant: string | undefined
  #collection: string | undefined
  #event: TailEvent | null = null
  #more: Array<{ tenant: string; collection: string | undefined; event: TailEvent | null }> | undefined

  constructor(lsn: number, payload: Buffer) {
    this.lsn = lsn
    this.payload = payload
  }

  /** The stored size of the commit's writes (see readEvents), once. */
  get rowBytes(): number {
    if (this.#rowBytes < 0) this.#decode()
    return this.#rowBytes
  }

  #decode(): Frame {
    const frame = { lsn: this.lsn, commit: decodeCommit(this.payload) }
    if (this.#rowBytes < 0) this.#rowBytes = rowBytes(frame)
    return frame
  }

  /** decodeEvent of this commit for `tenant` (and `collection`), made once per pair and shared. */
  event(tenant: string, collection: string | undefined): TailEvent | null {
    if (this.#tenant === tenant && this.#collection === collection) return this.#event
    if (this.#tenant === undefined) {
      this.#event = shared(decodeEvent(this.#decode(), tenant, collection))
      this.#tenant = tenant
      this.#collection = collection
      return this.#event
    }
    this.#more ??= []
    for (const kept of this.#more) if (kept.tenant === tenant && kept.collection === collection) return kept.event
    const event = shared(decodeEvent(this.#decode(), tenant, collection))
    this.#more.push({ tenant, collection, event })
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
