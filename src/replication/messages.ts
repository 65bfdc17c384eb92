// The messages of a cluster's stream (docs/format.md, "Replication stream"). A frame
// message carries one WAL frame's payload byte for byte; a term message marks where a
// new primary's term begins. Headers carry everything else:
//
// | header              | frame                                   | term                                   |
// |---------------------|-----------------------------------------|----------------------------------------|
// | `Nats-Msg-Id`       | `<database>:<lsn>` (JetStream drops a re-publish) | `<database>:term:<term>`     |
// | `Tenantdb-Kind`     | `frame`                                 | `term`                                 |
// | `Tenantdb-Database` | the database id                         | the database id                        |
// | `Tenantdb-Term`     | the term of the primary that committed it | the new term                         |
// | `Tenantdb-Lsn`      | its LSN                                 | the LSN of the last frame before it    |
// | `Tenantdb-Node`     | the primary's node id                   | the new primary's node id              |
// | `Tenantdb-At`       | the primary's clock at publishing, in ms (fraction allowed) | the same              |
// | data                | the frame's payload (docs/format.md, "Commit payload") | JSON `{"url": <advertised URL>}` |
//
// A stream is one linear history: every publish names the sequence it expects to
// follow (`Nats-Expected-Last-Sequence`), so a message from a primary that lost its
// term never lands after the next term's record.
import { headers, type MsgHdrs } from '@nats-io/transport-node'

export type StreamMessage =
  | { kind: 'frame'; database: string; term: number; lsn: number; node: string; at_ms: number; payload: Uint8Array }
  | { kind: 'term'; database: string; term: number; lsn: number; node: string; at_ms: number; url: string }

/** A message this version does not understand: the stream is not one of ours, or it is damaged. */
export class StreamMessageError extends Error {
  override name = 'StreamMessageError'
}

export function messageId(message: Pick<StreamMessage, 'kind' | 'database' | 'term' | 'lsn'>): string {
  return message.kind === 'frame' ? `${message.database}:${message.lsn}` : `${message.database}:term:${message.term}`
}

export function encodeHeaders(message: StreamMessage): MsgHdrs {
  const h = headers()
  h.set('Tenantdb-Kind', message.kind)
  h.set('Tenantdb-Database', message.database)
  h.set('Tenantdb-Term', String(message.term))
  h.set('Tenantdb-Lsn', String(message.lsn))
  h.set('Tenantdb-Node', message.node)
  h.set('Tenantdb-At', message.at_ms.toFixed(3))
  return h
}

export function encodeData(message: StreamMessage): Uint8Array {
  return message.kind === 'frame' ? message.payload : Buffer.from(JSON.stringify({ url: message.url }))
}

/** Decodes a stored or delivered message; throws StreamMessageError for one this version did not write. */
export function decodeMessage(seq: number, hdrs: MsgHdrs | undefined, data: Uint8Array): StreamMessage {
  const fail = (what: string) => new StreamMessageError(`stream message ${seq} is not a tenantdb message: ${what}`)
  if (hdrs === undefined) throw fail('no headers')
  const text = (name: string) => {
    const value = hdrs.get(name)
    if (value === '') throw fail(`no ${name}`)
    return value
  }
  const whole = (name: string) => {
    const value = text(name)
    if (!/^\d{1,15}$/.test(value)) throw fail(`${name} is not a whole number`)
    return Number(value)
  }
  const kind = text('Tenantdb-Kind')
  const at_ms = Number(text('Tenantdb-At'))
  if (!Number.isFinite(at_ms)) throw fail('Tenantdb-At is not a number')
  const common = { database: text('Tenantdb-Database'), term: whole('Tenantdb-Term'), lsn: whole('Tenantdb-Lsn'), node: text('Tenantdb-Node'), at_ms }
  if (kind === 'frame') return { kind, ...common, payload: data }
  if (kind !== 'term') throw fail(`unknown kind ${kind}`)
  let url: unknown
  try {
    url = (JSON.parse(Buffer.from(data).toString('utf8')) as { url?: unknown }).url
  } catch {
    throw fail('a term record whose data is not JSON')
  }
  if (typeof url !== 'string') throw fail('a term record without its url')
  return { kind, ...common, url }
}

/** The wall clock in milliseconds with a fraction (for the lag figures, docs/replication.md). */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now()
}
