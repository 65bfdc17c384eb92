// A worker thread's side of its port to the opening thread (docs/architecture.md,
// "Every core"): requests and statements it forwards and their answers, tenant tokens'
// last uses, and the opener's durable commits, which reach the attached database's
// change tail in LSN order (a port delivers messages in the order they were posted).
import type { MessagePort } from 'node:worker_threads'
import type { ThreadMetrics } from '../metrics/index.js'
import type { ForwardedAnswer, ForwardedQuery, ForwardedRequest, QueryOutcome, ToOpener, ToWorker } from './messages.js'

/** The opening thread did not answer a forwarded request: it is stopping or gone. */
export class OpenerGoneError extends Error {}

interface Waiting {
  /** A forwarded request's answer or a forwarded statement's outcome, as its id asked. */
  resolve: (answer: never) => void
  reject: (err: Error) => void
}

/** A Buffer over the bytes `postMessage` delivered (a plain Uint8Array), without a copy. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

export class OpenerLink {
  readonly #port: MessagePort
  readonly #waiting = new Map<number, Waiting>()
  #next_id = 0
  #closed = false

  constructor(port: MessagePort, handlers: { commits: (lsn: number, payload: Buffer) => void; metrics: () => Promise<ThreadMetrics>; stop: () => void }) {
    this.#port = port
    port.on('message', (message: ToWorker) => {
      switch (message.kind) {
        case 'answer': {
          const { body, ...rest } = message.answer
          this.#settle(message.id)?.resolve({ ...rest, body: asBuffer(body) } as never)
          return
        }
        case 'queried':
          this.#settle(message.id)?.resolve(message.outcome as never)
          return
        case 'refused':
          this.#settle(message.id)?.reject(new OpenerGoneError(message.message))
          return
        case 'commits':
          for (const [i, lsn] of message.lsns.entries()) handlers.commits(lsn, asBuffer(message.payloads[i] as Uint8Array))
          return
        case 'metrics': {
          const id = message.id
          handlers.metrics().then((metrics) => this.send({ kind: 'metrics', id, metrics }), () => this.send({ kind: 'metrics', id, metrics: [] }))
          return
        }
        case 'stop':
          handlers.stop()
      }
    })
    port.on('close', () => this.#gone())
  }

  /** Runs `request` on the opening thread, with its hooks, and resolves with its answer. */
  forward(request: ForwardedRequest): Promise<ForwardedAnswer> {
    return this.#ask((id) => ({ kind: 'forward', id, request }))
  }

  /** Runs a checked statement that commits on the opening thread, and resolves with how it ended. */
  query(query: ForwardedQuery): Promise<QueryOutcome> {
    return this.#ask((id) => ({ kind: 'query', id, query }))
  }

  #ask<T>(message: (id: number) => ToOpener): Promise<T> {
    if (this.#closed) return Promise.reject(new OpenerGoneError('the opening thread is gone'))
    const id = this.#next_id++
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (answer: never) => void, reject })
      this.#send(message(id))
    })
  }

  /** Tenant tokens' last uses, for the opener to write with its own. */
  uses(uses: Array<[string, number]>): void {
    if (uses.length > 0 && !this.#closed) this.#send({ kind: 'uses', uses })
  }

  send(message: ToOpener): void {
    if (!this.#closed) this.#send(message)
  }

  #send(message: ToOpener): void {
    this.#port.postMessage(message)
  }

  #settle(id: number): Waiting | undefined {
    const waiting = this.#waiting.get(id)
    this.#waiting.delete(id)
    return waiting
  }

  #gone(): void {
    this.#closed = true
    for (const waiting of this.#waiting.values()) waiting.reject(new OpenerGoneError('the opening thread is gone'))
    this.#waiting.clear()
  }
}
