// The cluster's stream of frames (docs/replication.md, "The stream"): one linear
// history, appended to only with the sequence the appender expects to follow, read by
// sequence, and searched by LSN (frames are in LSN order, so a binary search over
// sequences finds one in a few lookups).
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType } from '@nats-io/jetstream'
import { replication_stream_bytes_max } from '../limits.js'
import { decodeMessage, encodeData, encodeHeaders, messageId, type StreamMessage } from './messages.js'
import type { NatsLink } from './nats-link.js'

export interface StoredMessage {
  seq: number
  message: StreamMessage
}

export interface StreamEnds {
  /** 0 when the stream is empty. */
  first_seq: number
  last_seq: number
  /** The newest message, null when the stream is empty. */
  last: StoredMessage | null
}

/** A publish named a sequence that is no longer the stream's last: another primary appended. */
export class StreamFencedError extends Error {
  override name = 'StreamFencedError'
}

export class WalStream {
  readonly #link: NatsLink

  constructor(link: NatsLink) {
    this.#link = link
  }

  /** Creates the stream unless it exists. */
  async ensure(replicas: number): Promise<void> {
    const { jsm, names } = this.#link
    try {
      await jsm.streams.info(names.stream)
      return
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err
    }
    await jsm.streams.add({
      name: names.stream,
      subjects: [names.subject],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_bytes: replication_stream_bytes_max,
      num_replicas: replicas,
    })
  }

  async ends(): Promise<StreamEnds> {
    const { state } = await this.#link.jsm.streams.info(this.#link.names.stream)
    if (state.messages === 0) return { first_seq: 0, last_seq: state.last_seq, last: null }
    return { first_seq: state.first_seq, last_seq: state.last_seq, last: await this.at(state.last_seq) }
  }

  /** The message at `seq`, or null when the stream no longer (or does not yet) hold it. */
  async at(seq: number): Promise<StoredMessage | null> {
    const stored = await this.#link.jsm.streams.getMessage(this.#link.names.stream, { seq })
    if (stored === null) return null
    return { seq, message: decodeMessage(seq, stored.header, stored.data) }
  }

  /**
   * The frame of LSN `lsn`, or null when the stream does not hold it (dropped by the
   * stream's limits, or not published). `hint` is a sequence to start from.
   */
  async frame(lsn: number, ends?: StreamEnds): Promise<StoredMessage | null> {
    const { first_seq, last_seq } = ends ?? await this.ends()
    if (first_seq === 0) return null
    // The first message whose LSN is at least `lsn`: a term record carries the LSN of
    // the frame before it, so it never comes before a frame of a higher LSN.
    let low = first_seq
    let high = last_seq + 1
    while (low < high) {
      const middle = Math.floor((low + high) / 2)
      const found = await this.at(middle)
      if (found === null) {
        low = middle + 1
        continue
      }
      if (found.message.lsn < lsn) low = middle + 1
      else high = middle
    }
    for (let seq = low; seq <= last_seq; seq++) {
      const found = await this.at(seq)
      if (found === null || found.message.lsn > lsn) return null
      if (found.message.kind === 'frame') return found
    }
    return null
  }

  /**
   * The sequence of the first message past local head `head`: a frame of a higher LSN,
   * or a term record that begins after `head` or later. `last_seq + 1` when none.
   */
  async firstAfter(head: number, ends?: StreamEnds): Promise<number> {
    const { first_seq, last_seq } = ends ?? await this.ends()
    if (first_seq === 0) return last_seq + 1
    const past = (message: StreamMessage) => message.lsn > head || (message.kind === 'term' && message.lsn >= head)
    let low = first_seq
    let high = last_seq + 1
    while (low < high) {
      const middle = Math.floor((low + high) / 2)
      const found = await this.at(middle)
      if (found === null || !past(found.message)) low = middle + 1
      else high = middle
    }
    return low
  }

  /**
   * Appends `message` as the message after sequence `after`, resolving with its
   * sequence; a re-publish of a frame the stream already holds resolves with the
   * sequence it has. StreamFencedError when `after` is no longer the stream's last.
   */
  async publish(message: StreamMessage, after: number): Promise<number> {
    try {
      const ack = await this.#link.js.publish(this.#link.names.subject, encodeData(message), {
        msgID: messageId(message),
        expect: { lastSequence: after },
        headers: encodeHeaders(message),
      })
      return ack.seq
    } catch (err) {
      if (err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)) {
        throw new StreamFencedError(`the stream moved past sequence ${after}: another primary appended`)
      }
      throw err
    }
  }
}
