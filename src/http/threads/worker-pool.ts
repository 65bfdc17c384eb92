// The opening thread's side of a server on every core (docs/architecture.md, "Every
// core"): it starts the worker threads, each serving HTTP on the same address
// over the database attached to its thread; runs what they forward (a request that
// would commit, one whose token is wrong, one only this thread answers) through its
// own server, hooks and all, as if the client had sent it here, or, for a statement
// that commits, the statement alone (run-query.ts); writes the token uses
// they report; counts the tenants' usage they report as its own; and posts its durable commits to them, batched per turn of its loop,
// for their change tails.
import { Worker } from 'node:worker_threads'
import type { FastifyInstance } from 'fastify'
import type { AccessTokens, Database } from '../../database/index.js'
import type { ServerMetrics, ThreadMetrics } from '../metrics/index.js'
import type { ForwardedQuery, ForwardedRequest, ToOpener, ToWorker } from './messages.js'
import { asBuffer } from './opener-link.js'
import { failed, runForwardedQuery } from './run-query.js'

export interface WorkerPoolOptions {
  /** Worker threads to start (the opening thread serves as well). */
  count: number
  /** The worker's script; `data` is its `workerData`. */
  entry: URL
  data: Record<string, unknown>
  app: FastifyInstance
  /** The opening thread's metrics: scrapes and trends add up the workers' figures. */
  metrics: ServerMetrics
  db: Database
  tokens: AccessTokens
  /** Where the workers' log lines go: the opening thread's one output (its queue, its failure notice). */
  log: (line: string) => void
}

interface Running {
  worker: Worker
  stopped: Promise<void>
  /** Tail consumers reading on it, as it last reported. */
  tail_readers: number
}

export class WorkerPool {
  readonly #running: Running[] = []
  readonly #app: FastifyInstance
  readonly #db: Database
  #batch: { lsns: number[]; payloads: Buffer[] } | null = null
  #unsubscribe: () => void = () => {}
  /** Scrapes waiting for workers' metrics, by id. */
  readonly #scrapes = new Map<number, (metrics: ThreadMetrics) => void>()
  #next_scrape = 0

  private constructor(app: FastifyInstance, db: Database) {
    this.#app = app
    this.#db = db
  }

  /** Starts `count` workers and resolves once each listens; rejects (stopping those started) if one fails. */
  static async start(options: WorkerPoolOptions): Promise<WorkerPool> {
    const pool = new WorkerPool(options.app, options.db)
    pool.#unsubscribe = options.db.replica.subscribe({
      committed: (lsn, payload) => pool.#committed(lsn, payload),
      closed: () => {},
    })
    options.metrics.joinThreads({
      metrics: () => pool.#metrics(),
      tailReaders: () => pool.#running.reduce((sum, r) => sum + r.tail_readers, 0),
    })
    try {
      await Promise.all(Array.from({ length: options.count }, () => pool.#startOne(options)))
    } catch (err) {
      await pool.stop()
      throw err
    }
    return pool
  }

  /** How many workers serve now. */
  get size(): number {
    return this.#running.length
  }

  async #startOne(options: WorkerPoolOptions): Promise<void> {
    const worker = new Worker(options.entry, { workerData: options.data })
    let ready!: () => void
    let failed!: (err: Error) => void
    const listening = new Promise<void>((resolve, reject) => { ready = resolve; failed = reject })
    const stopped = new Promise<void>((resolve) => {
      worker.once('exit', (code) => {
        failed(new Error(`a worker thread exited with code ${code} before it served`))
        resolve()
      })
    })
    worker.on('error', (err) => {
      failed(err)
      this.#app.log.error({ err }, 'a worker thread failed; the other threads go on serving')
    })
    const running: Running = { worker, stopped, tail_readers: 0 }
    worker.on('message', (message: ToOpener) => {
      switch (message.kind) {
        case 'trends':
          for (const ms of message.durations_ms) options.metrics.trends.query(ms)
          running.tail_readers = message.tail_readers
          options.db.mergeUsage(message.usage)
          return
        case 'metrics':
          this.#scrapes.get(message.id)?.(message.metrics)
          return
        case 'ready': ready(); return
        case 'failed': failed(new Error(message.message)); return
        case 'forward': void this.#forward(worker, message.id, message.request); return
        case 'query': void this.#query(worker, message.id, message.query); return
        case 'uses': for (const [hash, at_ms] of message.uses) options.tokens.used(hash, at_ms); return
        case 'log': for (const line of message.lines) options.log(line); return
        case 'stopped': return
      }
    })
    this.#running.push(running)
    await listening
  }

  async #forward(worker: Worker, id: number, request: ForwardedRequest): Promise<void> {
    let message: ToWorker
    try {
      const response = await this.#app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: request.headers as Record<string, string>,
        remoteAddress: request.remote_address,
        ...(request.body === null ? {} : { payload: asBuffer(request.body) }),
      })
      message = { kind: 'answer', id, answer: { status: response.statusCode, headers: response.headers, body: response.rawPayload } }
    } catch (err) {
      message = { kind: 'refused', id, message: (err as Error).message }
    }
    worker.postMessage(message)
  }

  async #query(worker: Worker, id: number, query: ForwardedQuery): Promise<void> {
    const outcome = await runForwardedQuery(this.#db, query, this.#app.log)
    try {
      worker.postMessage({ kind: 'queried', id, outcome } satisfies ToWorker)
    } catch (err) {
      // A result the port cannot carry is this server's bug: the client gets `internal`.
      worker.postMessage({ kind: 'queried', id, outcome: failed(err, query, this.#app.log) } satisfies ToWorker)
    }
  }

  /** Every worker's thread metrics (a worker that exits meanwhile answers none). */
  #metrics(): Promise<ThreadMetrics[]> {
    return Promise.all(this.#running.map(({ worker, stopped }) => new Promise<ThreadMetrics>((resolve) => {
      const id = this.#next_scrape++
      const done = (metrics: ThreadMetrics) => {
        this.#scrapes.delete(id)
        resolve(metrics)
      }
      this.#scrapes.set(id, done)
      void stopped.then(() => done([]))
      worker.postMessage({ kind: 'metrics', id } satisfies ToWorker)
    })))
  }

  /** Posted once per turn: a group commit's many commits cost each worker one message. */
  #committed(lsn: number, payload: Buffer): void {
    if (this.#running.length === 0) return
    if (this.#batch === null) {
      this.#batch = { lsns: [], payloads: [] }
      setImmediate(() => this.#post())
    }
    this.#batch.lsns.push(lsn)
    this.#batch.payloads.push(payload)
  }

  #post(): void {
    const batch = this.#batch
    this.#batch = null
    if (batch === null) return
    const message: ToWorker = { kind: 'commits', ...batch }
    for (const { worker } of this.#running) worker.postMessage(message)
  }

  /**
   * Stops every worker: each stops accepting, answers what it has begun (this thread
   * still runs what they forward) and lets go of the database. Resolves once all exited.
   */
  async stop(): Promise<void> {
    this.#post()
    this.#unsubscribe()
    const running = this.#running.splice(0)
    for (const { worker } of running) worker.postMessage({ kind: 'stop' } satisfies ToWorker)
    await Promise.all(running.map((r) => r.stopped))
  }
}
