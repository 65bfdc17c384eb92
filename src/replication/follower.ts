// A follower's applier (docs/replication.md, "Followers"): reads the cluster's stream
// from a sequence on (an ordered consumer: in order, no gaps, recreated by the client
// after a lost connection), and applies the frames through the database's recovery
// path, as many in one WAL batch as have arrived. A term record is written to the
// node's term history before any frame of its term is applied. A frame of an older
// term than the newest record is a fenced primary's late message and is ignored; a
// frame at or below the head is one the node holds already (after a restart), and must
// be of the term the history says; anything else (a gap, a frame the engine refuses)
// means this directory cannot follow the stream, and the node re-seeds.
import { DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream'
import type { Replica, ReplicaFrame } from '../database/index.js'
import { replication_apply_bytes_max, replication_apply_frames_max, replication_consume_expires_ms, replication_retry_ms } from '../limits.js'
import { decodeMessage, StreamMessageError, wallClockMs, type StreamMessage } from './messages.js'
import type { NatsLink } from './nats-link.js'

export interface FollowerOptions {
  link: NatsLink
  replica: Replica
  database: string
  /** The first sequence to read. */
  from_seq: number
  /** The newest term the node's history holds. */
  term: number
  /** The term the node's history gives local frame `lsn`, or null when it does not say. */
  termOf(lsn: number): number | null
  /** Records a term record's term (durably) before frames of it are applied. */
  recordTerm(term: number, first_lsn: number, url: string): Promise<void>
  /** This directory cannot follow the stream; the follower has stopped. */
  diverged(reason: string): void
}

/** Apply lag samples kept (the newest), for the figures of docs/replication.md. */
const lag_samples_max = 4096

export class Follower {
  readonly #o: FollowerOptions
  #term: number
  /** Sequence of the last message whose effect is durable here. */
  #applied_seq: number
  #messages: ConsumerMessages | null = null
  #stopped = false
  readonly #done: Promise<void>
  /** Frames delivered, not yet applied, with the primary's clock at publishing. */
  #oldest_pending_at: number | null = null
  /** The highest LSN the stream is known to hold (delivered, or told by `streamAt`). */
  #stream_lsn = 0
  readonly #lag_samples: number[] = []
  #lag_next = 0
  readonly #waiters = new Set<{ seq: number; resolve: () => void }>()
  ignored_frames = 0

  constructor(options: FollowerOptions) {
    this.#o = options
    this.#term = options.term
    this.#applied_seq = options.from_seq - 1
    this.#stream_lsn = options.replica.headLsn()
    this.#done = this.#run()
  }

  get applied_seq(): number {
    return this.#applied_seq
  }

  get term(): number {
    return this.#term
  }

  /** Frames the stream holds that this node has not applied, and the age of the oldest. */
  lag(): { frames: number; ms: number } {
    const frames = Math.max(0, this.#stream_lsn - this.#o.replica.headLsn())
    return { frames, ms: frames === 0 || this.#oldest_pending_at === null ? 0 : Math.max(0, wallClockMs() - this.#oldest_pending_at) }
  }

  /** Told the stream's newest LSN (the node reads the stream's end now and then). */
  streamAt(lsn: number, at_ms: number): void {
    if (lsn > this.#stream_lsn) this.#stream_lsn = lsn
    if (lsn > this.#o.replica.headLsn() && this.#oldest_pending_at === null) this.#oldest_pending_at = at_ms
  }

  /** From the primary's publishing to durable here, in ms, of the newest applied frames. */
  lagSamples(): readonly number[] {
    return this.#lag_samples
  }

  /** Resolves once every message up to `seq` is applied (or the follower stopped). */
  until(seq: number): Promise<void> {
    if (this.#applied_seq >= seq || this.#stopped) return Promise.resolve()
    return new Promise((resolve) => { this.#waiters.add({ seq, resolve }) })
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#messages?.stop()
    await this.#done
    for (const waiter of this.#waiters) waiter.resolve()
    this.#waiters.clear()
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.#consume()
      } catch (err) {
        if (this.#stopped) return
        // A message of another database or not one of ours cannot be followed either.
        if (err instanceof DivergedError || err instanceof StreamMessageError) {
          this.#stopped = true
          this.#o.diverged(err.message)
          return
        }
        // The connection or the consumer failed: start again after the last applied message.
      }
      if (!this.#stopped) await new Promise((resolve) => setTimeout(resolve, replication_retry_ms))
    }
  }

  async #consume(): Promise<void> {
    const { link } = this.#o
    const consumer = await link.js.consumers.get(link.names.stream, { opt_start_seq: this.#applied_seq + 1, deliver_policy: DeliverPolicy.StartSequence })
    const messages = await consumer.consume({ max_messages: replication_apply_frames_max, expires: replication_consume_expires_ms })
    this.#messages = messages
    if (this.#stopped) messages.stop()
    let batch: Array<ReplicaFrame & { at_ms: number }> = []
    let batch_bytes = 0
    let batch_seq = 0
    const flush = async () => {
      if (batch.length === 0) return
      const frames = batch
      batch = []
      batch_bytes = 0
      try {
        await this.#o.replica.apply(frames)
      } catch (err) {
        throw new DivergedError(`frames ${frames[0]?.lsn}..${frames.at(-1)?.lsn} could not be applied: ${(err as Error).message}`)
      }
      const now = wallClockMs()
      for (const frame of frames) this.#sample(now - frame.at_ms)
      this.#oldest_pending_at = null
      this.#advance(batch_seq)
    }
    for await (const msg of messages) {
      const message = decodeMessage(msg.seq, msg.headers, msg.data)
      if (message.database !== this.#o.database) throw new DivergedError(`stream message ${msg.seq} is of database ${message.database}, this node's is ${this.#o.database}`)
      // Where the stream's history ends, as far as delivered (the node also reads the stream's end now and then);
      // a fenced primary's late frame says nothing of it.
      if (message.kind === 'term' || message.term >= this.#term) this.#stream_lsn = Math.max(this.#stream_lsn, message.lsn)
      const head = this.#o.replica.headLsn() + batch.length
      if (message.kind === 'term') {
        await flush()
        await this.#onTerm(message, head)
        this.#advance(msg.seq)
        continue
      }
      if (message.term > this.#term && message.lsn > head) {
        // A term whose record this node did not read (it started past it): recorded from its first frame.
        await flush()
        await this.#o.recordTerm(message.term, message.lsn, '')
        this.#term = message.term
      }
      // At a gap, the frames before it are applied first: the node stops at the last frame it could follow.
      if (message.term >= this.#term && message.lsn > this.#o.replica.headLsn() + batch.length + 1) await flush()
      const frame = this.#checkFrame(message, this.#o.replica.headLsn() + batch.length)
      if (frame === 'skip') {
        if (batch.length === 0) this.#advance(msg.seq)
        else batch_seq = msg.seq
        continue
      }
      if (this.#oldest_pending_at === null) this.#oldest_pending_at = message.at_ms
      batch.push({ lsn: message.lsn, payload: Buffer.from(message.payload), at_ms: message.at_ms })
      batch_bytes += message.payload.length
      batch_seq = msg.seq
      if (msg.info.pending === 0 || batch.length >= replication_apply_frames_max || batch_bytes >= replication_apply_bytes_max) await flush()
      if (this.#stopped) break
    }
    await flush()
  }

  async #onTerm(message: Extract<StreamMessage, { kind: 'term' }>, head: number): Promise<void> {
    if (message.term < this.#term) {
      this.ignored_frames++
      return
    }
    // The new term begins after frame `message.lsn`: frames past it here are not the cluster's.
    if (message.lsn < head && message.term > this.#term) {
      throw new DivergedError(`term ${message.term} begins after LSN ${message.lsn}, but this node holds frames up to ${head} that the stream does not`)
    }
    await this.#o.recordTerm(message.term, message.lsn + 1, message.url)
    this.#term = message.term
  }

  #checkFrame(message: Extract<StreamMessage, { kind: 'frame' }>, head: number): 'apply' | 'skip' {
    if (message.term < this.#term) {
      // A primary fenced out by a newer term: its late frame is not part of the history.
      this.ignored_frames++
      return 'skip'
    }
    if (message.lsn <= head) {
      const local = this.#o.termOf(message.lsn)
      if (local !== null && local !== message.term) throw new DivergedError(`frame ${message.lsn} is term ${message.term}'s in the stream and term ${local}'s here`)
      return 'skip'
    }
    if (message.lsn !== head + 1) throw new DivergedError(`the stream's next frame is ${message.lsn}, this node's next LSN is ${head + 1}: frames between are gone from the stream`)
    return 'apply'
  }

  #advance(seq: number): void {
    if (seq <= this.#applied_seq) return
    this.#applied_seq = seq
    for (const waiter of this.#waiters) {
      if (waiter.seq > seq) continue
      this.#waiters.delete(waiter)
      waiter.resolve()
    }
  }

  #sample(ms: number): void {
    if (this.#lag_samples.length < lag_samples_max) this.#lag_samples.push(ms)
    else this.#lag_samples[this.#lag_next] = ms
    this.#lag_next = (this.#lag_next + 1) % lag_samples_max
  }
}

class DivergedError extends Error {
  override name = 'DivergedError'
}
