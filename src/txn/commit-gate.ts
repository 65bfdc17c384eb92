// What decides whether this node may commit, and when a durable commit may be
// acknowledged (docs/replication.md). A server without replication has no gate: every
// commit is admitted and acknowledged once durable. A replicated node's gate admits
// commits only while it is the primary holding its lease, and in `sync` mode holds the
// acknowledgement back until the cluster's log holds the commit's frame.
import { CodedError } from '../coded-error.js'

/**
 * This node may not take the write: it is a follower (`follower`; `primary` names
 * where writes go, when known), or a primary that lost or cannot renew its lease, or
 * one whose commit was not acknowledged by the cluster's log (retry here later).
 * `outcome` is `unknown` for a commit that is durable here but not known to the
 * cluster: it may or may not survive a failover, like any write whose answer was lost.
 * `primary` and `outcome` are its details (an HTTP error body carries them); the HTTP
 * layer answers a follower's refusal 421 and the others 503 (docs/api.md, "Errors").
 */
export class NotPrimaryError extends CodedError<'not_primary'> {
  readonly primary: string | null
  readonly follower: boolean
  readonly outcome: 'unknown' | 'not_written'

  constructor(message: string, fields: { primary: string | null; follower: boolean; outcome?: 'unknown' | 'not_written' }) {
    const outcome = fields.outcome ?? 'not_written'
    super('not_primary', message, { primary: fields.primary, outcome })
    this.primary = fields.primary
    this.follower = fields.follower
    this.outcome = outcome
  }
}

export interface CommitGate {
  /** Throws NotPrimaryError when this node may not commit now. Synchronous and cheap: called for every commit. */
  admit(): void
  /**
   * Resolves once the durable commit `lsn` may be acknowledged to its client; rejects
   * with NotPrimaryError (outcome `unknown`) when it cannot be.
   */
  acknowledged(lsn: number): Promise<void>
}
