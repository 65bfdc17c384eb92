// The primary's lease (docs/replication.md, "The lease"): one key of the cluster's
// bucket, taken and renewed with compare-and-set on its revision, holding the term,
// the holder's node id and its advertised URL. It needs no clock shared between
// machines and no per-key TTL (so any JetStream server with key-value buckets serves):
//
// - a follower times the lease itself: a revision it has seen unchanged for a whole
//   lease (counted from when it saw it, and from its last reconnection to NATS, since
//   it could not watch meanwhile) has expired, and it may try to take it, with the
//   revision it saw: one renewal in between and the attempt fails;
// - the holder takes writes only until half a lease after it *sent* its last renewal
//   that succeeded. A follower's count for that revision began after it was written, so
//   the holder stops at least half a lease before anyone can take its place.
//
// A holder that stops cleanly releases the lease (node id empty, term kept), so a
// follower takes over at once; terms only grow either way.
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream'
import { lease_renewals_per_lease } from '../limits.js'
import { lease_key } from './names.js'
import type { NatsLink } from './nats-link.js'

export interface LeaseValue {
  term: number
  /** The holder's node id; empty once released. */
  node: string
  /** Where the holder takes writes (its --advertise URL). */
  url: string
}

export interface LeaseView {
  /** null: nobody ever held it. */
  value: LeaseValue | null
  /** 0 when the key does not exist. */
  revision: number
  /** Free to take: never held, released, held by this node's former process, or unchanged for a whole lease. */
  expired: boolean
}

export class Lease {
  readonly #link: NatsLink
  readonly #node: string
  readonly #lease_ms: number
  /** The revision this node last saw as a follower, and when it first saw it. */
  #observed: { revision: number; at: number } | null = null
  /** The last read failed: NATS was away, so the next revision read is timed from then on. */
  #blind = false
  #held: { revision: number; value: LeaseValue; writable_until: number } | null = null

  constructor(link: NatsLink, node: string, lease_ms: number) {
    this.#link = link
    this.#node = node
    this.#lease_ms = lease_ms
  }

  /** The lease as this node holds it, or null. */
  get held(): LeaseValue | null {
    return this.#held?.value ?? null
  }

  /** Whether the holder may take writes now (see the file's comment). */
  writable(): boolean {
    return this.#held !== null && performance.now() < this.#held.writable_until
  }

  /** Reads the key as a follower would, timing the revision it sees. */
  async read(): Promise<LeaseView> {
    let entry
    try {
      entry = await this.#link.kv.get(lease_key)
    } catch (err) {
      this.#blind = true
      throw err
    }
    if (entry === null || entry.operation !== 'PUT') return { value: null, revision: entry?.revision ?? 0, expired: true }
    const value = parseValue(entry.value)
    const now = performance.now()
    // A lease is timed only while it could be watched: after an outage, from the first read again.
    if (this.#observed?.revision !== entry.revision || this.#blind) this.#observed = { revision: entry.revision, at: now }
    this.#blind = false
    const since = Math.max(this.#observed.at, this.#link.connectedAt)
    const expired = value.node === '' || (value.node === this.#node && this.#held === null) || now - since >= this.#lease_ms
    return { value, revision: entry.revision, expired }
  }

  /** Takes the lease seen in `view` for `value`; false when another node changed it first. */
  async take(view: LeaseView, value: LeaseValue): Promise<boolean> {
    const sent = performance.now()
    const data = encodeValue(value)
    try {
      const revision = view.revision === 0 ? await this.#link.kv.create(lease_key, data) : await this.#link.kv.update(lease_key, data, view.revision)
      this.#held = { revision, value, writable_until: sent + this.#lease_ms / 2 }
      return true
    } catch (err) {
      if (isWrongRevision(err)) return false
      throw err
    }
  }

  /** Renews the held lease: `renewed`, `lost` (another node took it), or `failed` (NATS did not answer, or is away; still held, maybe). */
  async renew(): Promise<'renewed' | 'lost' | 'failed'> {
    const held = this.#held
    if (held === null) return 'lost'
    if (!this.#link.connected) return 'failed'
    const outcome = await this.#update(held, held.revision)
    if (outcome !== 'lost') return outcome
    // A renewal whose answer came too late may still have been written: the key then holds
    // this holder's own value at a newer revision. Nobody else writes that value (a taker
    // names a higher term, a release an empty node), so renew again from that revision.
    let landed
    try {
      landed = await this.#link.kv.get(lease_key)
    } catch {
      return 'failed'
    }
    if (this.#held !== held) return 'lost'
    if (landed?.operation === 'PUT' && sameValue(parseValue(landed.value), held.value)) {
      const adopted = { ...held, revision: landed.revision }
      this.#held = adopted
      const again = await this.#update(adopted, landed.revision)
      if (again !== 'lost') return again
    }
    this.#held = null
    return 'lost'
  }

  /** One compare-and-set of the held value at `revision`; extends the write window from when it was sent. */
  async #update(held: { revision: number; value: LeaseValue; writable_until: number }, revision: number): Promise<'renewed' | 'lost' | 'failed'> {
    const sent = performance.now()
    try {
      const next = await this.#link.kv.update(lease_key, encodeValue(held.value), revision, this.#lease_ms / lease_renewals_per_lease)
      if (this.#held === held) this.#held = { ...held, revision: next, writable_until: sent + this.#lease_ms / 2 }
      return 'renewed'
    } catch (err) {
      return isWrongRevision(err) ? 'lost' : 'failed'
    }
  }

  /** Gives the lease up (a clean stop): writes stop now, and a follower may take it at once. Best effort. */
  async release(): Promise<void> {
    const held = this.#held
    this.#held = null
    if (held === null) return
    try {
      await this.#link.kv.update(lease_key, encodeValue({ term: held.value.term, node: '', url: '' }), held.revision)
    } catch {
      // Not released: followers wait for it to expire instead.
    }
  }

  /** Forgets a held lease without writing (it was lost, or the node steps down). */
  drop(): void {
    this.#held = null
  }
}

function isWrongRevision(err: unknown): boolean {
  return err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
}

function sameValue(a: LeaseValue, b: LeaseValue): boolean {
  return a.term === b.term && a.node === b.node && a.url === b.url
}

function encodeValue(value: LeaseValue): Uint8Array {
  return Buffer.from(JSON.stringify(value))
}

function parseValue(data: Uint8Array): LeaseValue {
  const value = JSON.parse(Buffer.from(data).toString('utf8')) as Partial<LeaseValue>
  if (typeof value.term !== 'number' || typeof value.node !== 'string' || typeof value.url !== 'string') {
    throw new Error('the lease key does not hold a tenantdb lease')
  }
  return { term: value.term, node: value.node, url: value.url }
}
