// A replicated node (docs/replication.md): its database, opened as a follower, brought
// into line with the cluster's stream when it starts (bootstrapped from the primary's
// backup when empty; moved aside and copied again when it diverged), then one of:
//
// - follower: applies the stream's frames, serves reads, answers writes 421;
// - candidate: took the lease; applies the stream to its end, publishes the frames it
//   holds of the stream's newest term that the stream lacks, then its term record,
//   each naming the sequence it must follow, so no older primary's message can land
//   after it;
// - primary: commits, and publishes every frame (sync: acknowledged once the stream
//   holds it); renews its lease, and takes writes only while that is safe (lease.ts);
// - fenced: a sync primary that could not renew in time: refuses writes until it does.
//
// A node that loses its term (another node took the lease, or appended to the stream)
// or cannot follow the stream asks to be restarted (`restart`): the server closes it
// and starts it again, and its start decides where the directory stands.
import { randomBytes } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { CodedError } from '../coded-error.js'
import { NotPrimaryError, type CommitGate, type Database } from '../database/index.js'
import { lease_polls_per_lease, lease_renewals_per_lease, replication_retry_ms } from '../limits.js'
import { copyFromPrimary, moveAside, writeDiverged } from './bootstrap.js'
import { readClusterState, termOf, withTerm, writeClusterState, type ClusterState } from './cluster-state.js'
import { Follower } from './follower.js'
import { Lease, type LeaseView } from './lease.js'
import { wallClockMs } from './messages.js'
import { database_key } from './names.js'
import { NatsLink } from './nats-link.js'
import { Publisher } from './publisher.js'
import { standing } from './standing.js'
import type { ReplicationRole, ReplicationStatus } from './status.js'
import { StreamFencedError, WalStream } from './wal-stream.js'

export interface ReplicationOptions {
  servers: string[]
  credentialsFile: string | undefined
  cluster: string
  node: string
  leaseMs: number
  mode: 'sync' | 'async'
  /** Replicas of the stream and the bucket in NATS. */
  replicas: number
  /** The service token, shared by the cluster's nodes (a new node copies the primary's backup with it). */
  token: string
}

export interface NodeLog {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
}

/** The directory belongs to another database or cluster: an operator decides. */
export class ReplicationSetupError extends CodedError<'replication_setup_refused'> {
  constructor(message: string) {
    super('replication_setup_refused', message)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class ReplicationNode implements CommitGate {
  readonly db: Database
  /** Resolves with the reason when the node must be closed and started again. */
  readonly restart: Promise<string>
  readonly #request_restart: (reason: string) => void
  readonly #o: ReplicationOptions
  readonly #dir: string
  readonly #log: NodeLog
  readonly #link: NatsLink
  readonly #stream: WalStream
  readonly #lease: Lease
  #state: ClusterState
  #role: ReplicationRole = 'follower'
  #term: number
  #primary_url: string | null = null
  #url = ''
  #follower: Follower | null = null
  #publisher: Publisher | null = null
  /** This node holds frames of the stream's newest term past the stream's end (it was that term's primary). */
  #ahead: boolean
  #taking_over = false
  #stopping = false
  #loop: Promise<void> | null = null

  private constructor(fields: { db: Database; options: ReplicationOptions; dir: string; log: NodeLog; link: NatsLink; stream: WalStream; state: ClusterState; from_seq: number; stream_term: number; ahead: boolean }) {
    this.db = fields.db
    this.#o = fields.options
    this.#dir = fields.dir
    this.#log = fields.log
    this.#link = fields.link
    this.#stream = fields.stream
    this.#state = fields.state
    this.#term = Math.max(fields.state.terms.at(-1)?.term ?? 0, fields.stream_term)
    this.#ahead = fields.ahead
    this.#lease = new Lease(fields.link, fields.options.node, fields.options.leaseMs)
    let request!: (reason: string) => void
    this.restart = new Promise((resolve) => { request = resolve })
    this.#request_restart = (reason) => {
      if (this.#stopping) return
      this.#log.warn('replication: restarting the node', { reason })
      request(reason)
    }
    this.db.replica.setGate(this)
    this.#follow(fields.from_seq)
  }

  /**
   * Connects to NATS, brings the directory into line with the cluster (see the file's
   * comment) and opens it with `open` as a follower. `run` then starts taking part.
   */
  static async start(dir: string, options: ReplicationOptions, open: () => Promise<Database>, log: NodeLog): Promise<ReplicationNode> {
    const link = await NatsLink.open({ servers: options.servers, credentialsFile: options.credentialsFile, cluster: options.cluster, node: options.node, replicas: options.replicas })
    try {
      const stream = new WalStream(link)
      await stream.ensure(options.replicas)
      const lease = new Lease(link, options.node, options.leaseMs)
      for (;;) {
        let state = await readClusterState(dir)
        const has_data = await exists(join(dir, 'pages'))
        const { id: database, created } = await clusterDatabase(link, options.cluster, state, has_data)
        // A cluster that has a database already: an empty directory copies it.
        if (!has_data && !created) state = await bootstrap(dir, options, database, lease, log)
        const db = await open()
        try {
          const head = db.replica.headLsn()
          if (state === null) {
            // The first node of a new cluster: what it holds is where the cluster begins.
            state = { format: 1, cluster: options.cluster, database, base_lsn: head, terms: [] }
            await writeClusterState(dir, state)
          }
          const where = await standing(stream, state, head)
          if (where.kind === 'follow' || where.kind === 'ahead') {
            log.info('replication: joined', { cluster: options.cluster, node: options.node, database, head_lsn: head, standing: where.kind })
            return new ReplicationNode({ db, options, dir, log, link, stream, state, from_seq: where.from_seq, stream_term: where.stream_term, ahead: where.kind === 'ahead' })
          }
          const fields = { cluster: options.cluster, database, node: options.node, head_lsn: head, reason: where.reason }
          if (where.kind === 'diverged') await writeDiverged(db.replica, dir, { ...fields, common_lsn: where.common_lsn, at: new Date().toISOString() })
          await db.close()
          const aside = await moveAside(dir)
          log.warn(`replication: the directory ${where.kind === 'diverged' ? 'diverged from' : 'fell behind'} the cluster; moved aside, copying it again from the primary`, { ...fields, moved_to: aside })
        } catch (err) {
          await db.close().catch(() => {})
          throw err
        }
      }
    } catch (err) {
      await link.close()
      throw err
    }
  }

  /** Starts taking part in leadership, reachable at `url` (advertised in the lease). */
  run(url: string): void {
    this.#url = url
    this.#loop ??= this.#leaseLoop()
  }

  // The commit gate (src/txn/commit-gate.ts).

  admit(): void {
    if (this.#role === 'primary' && (this.#o.mode === 'async' || this.#lease.writable())) return
    if (this.#role === 'follower') {
      throw new NotPrimaryError(`this node is a follower of cluster ${this.#o.cluster}: send writes to the primary${this.#primary_url === null ? ' (none is known now)' : ` at ${this.#primary_url}`}`, { primary: this.#primary_url, follower: true })
    }
    const why = this.#role === 'candidate' ? 'is becoming the primary' : 'cannot renew its lease'
    throw new NotPrimaryError(`this node ${why}: it takes no writes now; retry shortly`, { primary: null, follower: false })
  }

  acknowledged(lsn: number): Promise<void> {
    if (this.#o.mode === 'async') return Promise.resolve()
    const publisher = this.#publisher
    if (publisher === null) return Promise.reject(this.#unacknowledged())
    return publisher.acknowledged(lsn)
  }

  #unacknowledged(): NotPrimaryError {
    return new NotPrimaryError('this commit is durable on this node but the cluster did not acknowledge it: it may or may not survive a failover', { primary: null, follower: false, outcome: 'unknown' })
  }

  status(): ReplicationStatus {
    const lag = this.#publisher?.lag() ?? this.#follower?.lag() ?? { frames: 0, ms: 0 }
    const samples = this.#follower?.lagSamples() ?? []
    let apply_lag_ms: ReplicationStatus['apply_lag_ms'] = null
    if (samples.length > 0) {
      const sorted = [...samples].sort((a, b) => a - b)
      const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number)
      apply_lag_ms = { p50: at(0.5), p99: at(0.99), max: round(sorted.at(-1) as number), samples: sorted.length }
    }
    const role = this.#role === 'primary' && this.#o.mode === 'sync' && !this.#lease.writable() ? 'fenced' : this.#role
    return {
      role, term: this.#term, node: this.#o.node, cluster: this.#o.cluster, mode: this.#o.mode,
      primary: this.#role === 'primary' ? this.#url : this.#primary_url,
      applied_lsn: this.db.replica.headLsn(), lag_frames: lag.frames, lag_ms: round(lag.ms),
      nats_connected: this.#link.connected, apply_lag_ms,
    }
  }

  /**
   * Stops: a primary stops taking writes, lets the stream acknowledge what it
   * committed (up to one lease), and releases the lease so a follower takes over at
   * once; then the database closes.
   */
  async close(): Promise<void> {
    this.#stopping = true
    const publisher = this.#publisher
    if (publisher !== null) {
      this.#role = 'follower'
      const head = this.db.replica.headLsn()
      await Promise.race([publisher.acknowledged(head).catch(() => {}), sleep(this.#o.leaseMs)])
      publisher.stop(this.#unacknowledged())
    }
    // A primary, or a candidate still catching up: a follower takes over at once.
    await this.#lease.release()
    await this.#follower?.stop()
    await this.#loop
    try {
      await this.db.close()
    } finally {
      await this.#link.close()
    }
  }

  #follow(from_seq: number): void {
    this.#follower = new Follower({
      link: this.#link,
      replica: this.db.replica,
      database: this.#state.database,
      from_seq,
      // The term of the node's own newest frames: the stream's frames after them may be of older terms than its newest.
      term: this.#state.terms.at(-1)?.term ?? 0,
      termOf: (lsn) => termOf(this.#state, lsn),
      recordTerm: async (term, first_lsn, url) => {
        await this.#recordTerm(term, first_lsn)
        if (url !== '') this.#primary_url = url
        this.#ahead = false
      },
      diverged: (reason) => this.#request_restart(`this directory cannot follow the stream: ${reason}`),
    })
  }

  async #recordTerm(term: number, first_lsn: number): Promise<void> {
    this.#state = withTerm(this.#state, term, first_lsn)
    await writeClusterState(this.#dir, this.#state)
    this.#term = Math.max(this.#term, term)
  }

  async #leaseLoop(): Promise<void> {
    while (!this.#stopping) {
      const started = performance.now()
      const primary = this.#role === 'primary' || this.#role === 'candidate'
      try {
        if (primary) await this.#renew()
        else await this.#watch()
      } catch {
        // NATS did not answer: the next round tries again (a primary stops in time by itself, lease.ts).
      }
      // Rounds begin at a steady interval, however long one took: a slow renewal does not push the next one back.
      const interval = this.#o.leaseMs / (primary ? lease_renewals_per_lease : lease_polls_per_lease)
      await sleep(Math.max(0, interval - (performance.now() - started)))
    }
  }

  async #renew(): Promise<void> {
    const outcome = await this.#lease.renew()
    if (outcome === 'lost') return this.#lost('another node took the lease')
    // A sync primary that could not renew in time takes no writes (admit), and tells
    // those waiting for an acknowledgement that none is coming now.
    if (this.#o.mode === 'sync' && !this.#lease.writable()) this.#publisher?.abandonWaiters(this.#unacknowledged())
  }

  async #watch(): Promise<void> {
    const view = await this.#lease.read()
    if (view.value !== null && view.value.node !== '' && view.value.node !== this.#o.node) this.#primary_url = view.value.url
    const ends = await this.#stream.ends()
    if (ends.last !== null) this.#follower?.streamAt(ends.last.message.lsn, ends.last.message.at_ms)
    if (view.expired && this.#follower !== null && !this.#taking_over && this.#url !== '') {
      const term = Math.max(view.value?.term ?? 0, this.#term, ends.last?.message.term ?? 0) + 1
      if (await this.#lease.take(view, { term, node: this.#o.node, url: this.#url })) {
        this.#taking_over = true
        void this.#takeOver(term, view).finally(() => { this.#taking_over = false })
      }
    }
  }

  async #takeOver(term: number, taken: LeaseView): Promise<void> {
    this.#role = 'candidate'
    const started = performance.now()
    this.#log.info('replication: took the lease, catching up', { term, previous: taken.value?.node ?? null })
    try {
      let after_seq = 0
      for (;;) {
        if (this.#lease.held === null || this.#stopping) return
        const ends = await this.#stream.ends()
        const follower = this.#follower
        if (follower === null) throw new Error('no follower to catch up with')
        await Promise.race([follower.until(ends.last_seq), sleep(this.#o.leaseMs)])
        if (follower.applied_seq < ends.last_seq) continue
        await follower.stop()
        this.#follower = null
        try {
          after_seq = await this.#publishOpening(term, ends.last_seq, ends.last?.message.lsn ?? 0, ends.last?.message.term ?? 0)
          break
        } catch (err) {
          if (!(err instanceof StreamFencedError)) throw err
          // Another message landed meanwhile (an older primary's last frames): apply them, then try again.
          this.#follow(follower.applied_seq + 1)
        }
      }
      const head = this.db.replica.headLsn()
      await this.#recordTerm(term, head + 1)
      this.#publisher = new Publisher({
        stream: this.#stream, replica: this.db.replica, database: this.#state.database, node: this.#o.node, term,
        after_seq, acked_lsn: head, fenced: (reason) => this.#lost(reason),
      })
      this.#role = 'primary'
      this.#ahead = false
      await this.db.replica.promote()
      this.#log.info('replication: primary', { term, head_lsn: head, took_ms: Math.round(performance.now() - started) })
    } catch (err) {
      this.#log.warn('replication: taking over failed', { term, error: (err as Error).message })
      this.#lost(`taking over failed: ${(err as Error).message}`)
    }
  }

  /**
   * Publishes the frames this node holds past the stream's end (of the stream's newest
   * term: it was that term's primary) and then the new term's record, each naming the
   * sequence before it. Resolves with the record's sequence.
   */
  async #publishOpening(term: number, last_seq: number, stream_lsn: number, stream_term: number): Promise<number> {
    const { database } = this.#state
    const node = this.#o.node
    let seq = last_seq
    const head = this.db.replica.headLsn()
    for (let after = stream_lsn; after < head;) {
      const frames = await this.db.replica.frames(after, 256, 4 * 1024 * 1024)
      if (frames.length === 0) throw new Error(`frames after ${after} are no longer in this node's WAL`)
      for (const frame of frames) {
        const frame_term = termOf(this.#state, frame.lsn) ?? stream_term
        seq = await this.#stream.publish({ kind: 'frame', database, term: frame_term, lsn: frame.lsn, node, at_ms: wallClockMs(), payload: frame.payload }, seq)
        after = frame.lsn
      }
    }
    return this.#stream.publish({ kind: 'term', database, term, lsn: head, node, at_ms: wallClockMs(), url: this.#url }, seq)
  }

  /** This node is no longer the primary: writes stop now, and the node restarts as a follower. */
  #lost(reason: string): void {
    if (this.#stopping) return
    this.#role = 'follower'
    this.#lease.drop()
    this.db.replica.demote()
    this.#publisher?.stop(this.#unacknowledged())
    this.#request_restart(reason)
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw err
  }
}

/**
 * The cluster's database id from its bucket, made (or carried over from this
 * directory) when the cluster has none yet; refuses a directory of another database.
 */
async function clusterDatabase(link: NatsLink, cluster: string, state: ClusterState | null, has_data: boolean): Promise<{ id: string; created: boolean }> {
  if (state !== null && state.cluster !== cluster) throw new ReplicationSetupError(`this directory belongs to cluster ${state.cluster}, not ${cluster}`)
  for (;;) {
    const entry = await link.kv.get(database_key)
    if (entry !== null && entry.operation === 'PUT') {
      const { id } = JSON.parse(Buffer.from(entry.value).toString('utf8')) as { id: string }
      if (state !== null && state.database !== id) throw new ReplicationSetupError(`this directory holds database ${state.database}, cluster ${cluster} holds database ${id}: start this node with an empty directory to join it`)
      if (state === null && has_data) throw new ReplicationSetupError(`this directory holds a database that belongs to no cluster, and cluster ${cluster} has one already: start this node with an empty directory to join it`)
      return { id, created: false }
    }
    const id = state?.database ?? randomBytes(8).toString('hex')
    try {
      await link.kv.create(database_key, Buffer.from(JSON.stringify({ id })))
      return { id, created: true }
    } catch {
      // Another node made it first: read theirs.
    }
  }
}

/** Copies the primary's backup into the empty directory `dir`; waits for a primary to copy from. */
async function bootstrap(dir: string, options: ReplicationOptions, database: string, lease: Lease, log: NodeLog): Promise<ClusterState> {
  for (;;) {
    const view = await lease.read().catch(() => null)
    const url = view?.value?.node === '' || view?.value?.node === options.node ? null : view?.value?.url ?? null
    if (url !== null) {
      try {
        const lsn = await copyFromPrimary(url, options.token, dir)
        const state: ClusterState = { format: 1, cluster: options.cluster, database, base_lsn: lsn, terms: [] }
        await writeClusterState(dir, state)
        log.info('replication: copied the primary\'s backup', { primary: url, lsn })
        return state
      } catch (err) {
        log.warn('replication: copying the primary\'s backup failed; retrying', { primary: url, error: (err as Error).message })
      }
    }
    await sleep(replication_retry_ms * 4)
  }
}
