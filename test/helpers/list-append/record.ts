// Recording a history: clients run their planned transactions through a `Submit`
// function (the embedding API or the HTTP query route, submit.ts), one at a time each,
// all concurrently, and every transaction is recorded with its outcome and its times
// on one logical clock: ok (committed; its reads filled in), fail (a reported
// conflict: it did not commit) or info (no answer: it may or may not have committed).
// A conflict is not retried: the next transaction has new values, as in Elle.
import type { Value } from '../../../src/lang/ast.js'
import type { History, Op, Txn } from './history.js'
import { eelTxn, type Answer } from './eel-txn.js'
import type { PlannedTxn } from './workload.js'

export type Submitted =
  | { outcome: 'ok'; answer: Answer }
  | { outcome: 'fail' } // a reported conflict
  | { outcome: 'info'; reason: string } // no answer (the server died)
  | { outcome: 'error'; reason: string } // any other answer: unexpected

export type Submit = (query: string, params: Record<string, Value>) => Promise<Submitted>

export interface RunOptions {
  /** Stop starting transactions once this is true (the server was killed). */
  stopped?: () => boolean
  /** Called after every answer (ok or fail). */
  onAnswer?: () => void
  /** Added to the client's index to name its process. */
  processBase?: number
}

export class Recorder {
  readonly history: History = []
  /** Answers that are neither a commit nor a conflict, and lost answers while the server was up. */
  readonly unexpected: string[] = []
  #clock = 0

  /** Runs each client's plans in order, all clients at once. */
  async run(plans: PlannedTxn[][], submit: Submit, options: RunOptions = {}): Promise<void> {
    const stopped = options.stopped ?? (() => false)
    await Promise.all(plans.map(async (txns, client) => {
      for (const [i, planned] of txns.entries()) {
        if (stopped()) return
        const txn = await this.transaction(planned, submit, (options.processBase ?? 0) + client, i % 2 === 1)
        if (txn.type === 'info') {
          if (!stopped()) this.unexpected.push(`T${txn.id} got no answer while the server was up`)
          return // its connection is gone; so is the server
        }
        options.onAnswer?.()
      }
    }))
  }

  /** Transactions sent and not yet answered. */
  get pending(): number {
    let count = 0
    for (let i = this.history.length - 1; i >= 0 && count < 64; i -= 1) if (this.history[i]?.complete === -1) count += 1
    return count
  }

  /** Reads keys 0 … count - 1 after everything else, in read-only transactions of up to 500 keys. */
  async readAll(count: number, submit: Submit): Promise<void> {
    for (let first = 0; first < count; first += 500) {
      const ops: Op[] = Array.from({ length: Math.min(500, count - first) }, (_, i) => ({ f: 'r', key: first + i, value: null }))
      const txn = await this.transaction({ ops }, submit, -1, true)
      if (txn.type !== 'ok') this.unexpected.push(`the final read of keys ${first}… ended ${txn.type}`)
    }
  }

  async transaction(planned: PlannedTxn, submit: Submit, process: number, oneStatementRead: boolean): Promise<Txn> {
    const { ops } = planned
    const eel = eelTxn(planned, oneStatementRead)
    const txn: Txn = { id: this.history.length + 1, process, type: 'info', ops, invoke: this.#clock++, complete: -1 }
    this.history.push(txn)
    const hidden = ops.map((op) => (op.f === 'r' ? { ...op, value: null } : op))
    let submitted: Submitted
    try {
      submitted = await submit(eel.query, eel.params)
    } catch (err) {
      submitted = { outcome: 'error', reason: (err as Error).stack ?? String(err) }
    }
    txn.complete = this.#clock++
    if (submitted.outcome === 'ok') {
      try {
        txn.ops = eel.complete(submitted.answer)
        txn.type = 'ok'
      } catch (err) {
        // A commit whose answer cannot be read: committed, reads unknown.
        this.unexpected.push(`T${txn.id}: ${(err as Error).message}`)
        txn.ops = hidden
      }
    } else {
      txn.ops = hidden
      if (submitted.outcome === 'fail') txn.type = 'fail'
      if (submitted.outcome === 'error') this.unexpected.push(`T${txn.id} (${eel.query}): ${submitted.reason}`)
    }
    return txn
  }
}
