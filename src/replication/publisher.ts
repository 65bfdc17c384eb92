// The primary's publisher (docs/replication.md, "Log shipping"): every durable commit's
// frame goes to the cluster's stream, in LSN order, each publish naming the sequence it
// must follow, pipelined (up to replication_publish_in_flight_max frames unacknowledged,
// their sequences predicted one after another). Frames come from the committer as they
// become durable; whatever it missed (a restart, a bounded queue overflowing while NATS
// was away) is read back from the WAL. A failed or surprising publish stops the
// pipeline; once every publish in flight has settled, the stream's last message says
// where to resume: a message of this primary's term (a frame acknowledged whose answer
// was lost), or a newer term's, and then this node was fenced out.
import { replication_publish_in_flight_max, replication_read_bytes_max, replication_read_frames_max, replication_retry_ms } from '../limits.js'
import type { Replica } from '../database/index.js'
import { wallClockMs, type StreamMessage } from './messages.js'
import type { WalStream } from './wal-stream.js'

export interface PublisherOptions {
  stream: WalStream
  replica: Replica
  database: string
  node: string
  term: number
  /** The stream's sequence of this primary's term record: the first frame follows it. */
  after_seq: number
  /** Every frame up to it is in the stream (the head at the term's start). */
  acked_lsn: number
  /** The stream holds a newer term's message: this node is no longer the primary. */
  fenced(reason: string): void
}

interface InFlight {
  lsn: number
  /** The sequence it was published to follow. */
  after: number
  seen_at: number
  seq?: number
  error?: unknown
  settled: boolean
}

interface Waiter {
  lsn: number
  resolve(): void
  reject(err: unknown): void
}

export class Publisher {
  readonly #o: PublisherOptions
  /** Frames from the committer not yet sent, by LSN, with when they were seen. */
  readonly #queue = new Map<number, { payload: Buffer; seen_at: number }>()
  readonly #in_flight: InFlight[] = []
  readonly #waiters: Waiter[] = []
  /** The next LSN to send. */
  #next_lsn: number
  #acked_lsn: number
  /** Sequence of the last message known to be in the stream and ours. */
  #last_seq: number
  #failed = false
  #reading = false
  #resyncing = false
  #stopped: unknown = null
  readonly #unsubscribe: () => void

  constructor(options: PublisherOptions) {
    this.#o = options
    this.#acked_lsn = options.acked_lsn
    this.#next_lsn = options.acked_lsn + 1
    this.#last_seq = options.after_seq
    this.#unsubscribe = options.replica.subscribe({
      committed: (lsn, payload) => this.#committed(lsn, payload),
      closed: () => {},
    })
    this.#pump()
  }

  /** Frames up to it are in the stream. */
  get acked_lsn(): number {
    return this.#acked_lsn
  }

  /** Durable here but not yet in the stream: the loss window of `async` mode. */
  lag(): { frames: number; ms: number } {
    const head = this.#o.replica.headLsn()
    const frames = Math.max(0, head - this.#acked_lsn)
    if (frames === 0) return { frames, ms: 0 }
    const oldest = this.#in_flight[0]?.seen_at ?? this.#queue.get(this.#acked_lsn + 1)?.seen_at
    return { frames, ms: oldest === undefined ? 0 : Math.max(0, performance.now() - oldest) }
  }

  /** Resolves once the stream holds frame `lsn`; rejects if this publisher stops first. */
  acknowledged(lsn: number): Promise<void> {
    if (lsn <= this.#acked_lsn) return Promise.resolve()
    if (this.#stopped !== null) return Promise.reject(this.#stopped)
    return new Promise((resolve, reject) => { this.#waiters.push({ lsn, resolve, reject }) })
  }

  /** Rejects every commit waiting for its acknowledgement now; publishing goes on. */
  abandonWaiters(reason: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(reason)
  }

  /** Stops publishing; every waiter is rejected with `reason`. */
  stop(reason: unknown): void {
    if (this.#stopped !== null) return
    this.#stopped = reason
    this.#unsubscribe()
    this.#queue.clear()
    for (const waiter of this.#waiters.splice(0)) waiter.reject(reason)
  }

  #committed(lsn: number, payload: Buffer): void {
    if (this.#stopped !== null || lsn < this.#next_lsn) return
    // Bounded: past it, frames are read back from the WAL when their turn comes.
    if (this.#queue.size < replication_publish_in_flight_max * 4) this.#queue.set(lsn, { payload, seen_at: performance.now() })
    this.#pump()
  }

  #pump(): void {
    if (this.#stopped !== null || this.#failed || this.#resyncing) return
    while (this.#in_flight.length < replication_publish_in_flight_max) {
      const queued = this.#queue.get(this.#next_lsn)
      if (queued === undefined) break
      this.#queue.delete(this.#next_lsn)
      this.#send(this.#next_lsn, queued.payload, queued.seen_at)
    }
    if (this.#in_flight.length < replication_publish_in_flight_max && !this.#queue.has(this.#next_lsn) && this.#next_lsn <= this.#o.replica.headLsn()) void this.#readBack()
  }

  /** Frames the committer did not hand over (or the queue could not keep): from the WAL. */
  async #readBack(): Promise<void> {
    if (this.#reading) return
    this.#reading = true
    try {
      const from = this.#next_lsn
      const frames = await this.#o.replica.frames(from - 1, replication_read_frames_max, replication_read_bytes_max)
      const now = performance.now()
      for (const frame of frames) if (frame.lsn >= this.#next_lsn && !this.#queue.has(frame.lsn)) this.#queue.set(frame.lsn, { payload: frame.payload, seen_at: now })
    } catch (err) {
      // The WAL no longer holds frames the stream lacks: nothing can publish them.
      this.#o.fenced(`frames after LSN ${this.#next_lsn - 1} cannot be read back for the stream: ${(err as Error).message}`)
      return
    } finally {
      this.#reading = false
    }
    this.#pump()
  }

  #send(lsn: number, payload: Buffer, seen_at: number): void {
    const after = this.#last_seq + this.#in_flight.length
    const entry: InFlight = { lsn, after, seen_at, settled: false }
    this.#in_flight.push(entry)
    this.#next_lsn = lsn + 1
    const { database, node, term } = this.#o
    const message: StreamMessage = { kind: 'frame', database, term, lsn, node, at_ms: wallClockMs(), payload }
    this.#o.stream.publish(message, after).then(
      (seq) => { entry.seq = seq },
      (err: unknown) => { entry.error = err },
    ).finally(() => {
      entry.settled = true
      this.#settle()
    })
  }

  /** Takes acknowledged frames off the front of the pipeline, in order. */
  #settle(): void {
    while (this.#in_flight[0]?.settled === true) {
      const entry = this.#in_flight.shift() as InFlight
      if (this.#failed) continue
      // A duplicate (a sequence other than the predicted one) also stops the pipeline: the stream says where to go on.
      // A fenced publish decides nothing by itself either: the last message does.
      if (entry.error !== undefined || entry.seq !== entry.after + 1) {
        this.#failed = true
        continue
      }
      this.#acked(entry.lsn, entry.seq)
    }
    if (this.#failed && this.#in_flight.length === 0) void this.#resync()
    else this.#pump()
  }

  #acked(lsn: number, seq: number): void {
    this.#acked_lsn = Math.max(this.#acked_lsn, lsn)
    this.#last_seq = Math.max(this.#last_seq, seq)
    if (this.#waiters.length === 0) return
    let kept = 0
    for (const waiter of this.#waiters) {
      if (waiter.lsn <= this.#acked_lsn) waiter.resolve()
      else this.#waiters[kept++] = waiter
    }
    this.#waiters.length = kept
  }

  /** After a failed publish: the stream's last message says where this primary stands. */
  async #resync(): Promise<void> {
    if (this.#resyncing) return
    this.#resyncing = true
    try {
      while (this.#stopped === null) {
        try {
          const { last } = await this.#o.stream.ends()
          if (last === null || last.message.database !== this.#o.database || last.message.term !== this.#o.term || last.message.node !== this.#o.node) {
            this.#o.fenced(last === null ? 'the stream is empty: it was deleted or purged' : `the stream's last message is term ${last.message.term}'s, of node ${last.message.node}`)
            return
          }
          // A term record carries the LSN of the frame before it: either way, every frame up to `lsn` is in.
          this.#acked(last.message.lsn, last.seq)
          this.#last_seq = last.seq
          this.#next_lsn = this.#acked_lsn + 1
          for (const lsn of [...this.#queue.keys()]) if (lsn < this.#next_lsn) this.#queue.delete(lsn)
          this.#failed = false
          break
        } catch {
          // NATS is away: try again shortly, for as long as this node is the primary.
          await new Promise((resolve) => setTimeout(resolve, replication_retry_ms))
        }
      }
    } finally {
      this.#resyncing = false
    }
    this.#pump()
  }
}
