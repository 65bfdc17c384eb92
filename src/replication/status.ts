// What a replicated node reports (docs/api.md, "Health and stats"; docs/replication.md, "Watching it").

/**
 * `primary`: holds the lease and takes writes. `fenced`: holds (or held) the lease but
 * could not renew it in time (sync mode): refuses writes until it renews it. `candidate`:
 * won the lease, catching up before taking writes. `follower`: applies the primary's
 * frames, serves reads.
 */
export type ReplicationRole = 'primary' | 'fenced' | 'candidate' | 'follower'

export interface ReplicationStatus {
  role: ReplicationRole
  /** The newest term this node knows of (its own, when primary). */
  term: number
  node: string
  cluster: string
  mode: 'sync' | 'async'
  /** Where writes go (the primary's advertised URL), null while unknown. */
  primary: string | null
  /** LSN of the newest frame durable here (committed or applied). */
  applied_lsn: number
  /** A follower: frames the stream holds that it has not applied. A primary: frames durable here the stream has not acknowledged. */
  lag_frames: number
  /** The age of the oldest of those frames, in ms (0 when none). */
  lag_ms: number
  /** Whether the node's connection to NATS is up. */
  nats_connected: boolean
  /** From the primary's publishing to durable on this follower, over the newest applied frames (null before any). */
  apply_lag_ms: { p50: number; p99: number; max: number; samples: number } | null
}

/** What the HTTP server asks a replicated node for. */
export interface ReplicationReporter {
  status(): ReplicationStatus
}
