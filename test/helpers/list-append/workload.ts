// The list-append workload, planned up front from a seed (Elle's generator, shaped for
// tenantdb): each client runs its own sequence of transactions over a window of
// `active` keys that slides by `stride` every `window_txns` of its transactions, so
// the clients, running at about the same pace, contend on the same few keys while
// the run as a whole covers many. A quarter of the transactions are read-only (several
// keys read on one snapshot); the others mix reads and appends, often a read then an
// append of the same key (what exposes lost updates), sometimes two appends to one key
// (what an intermediate read would see). Some blocks (most read-only ones, one in five
// of the others) also scan the filler rows between two of their operations
// (eel-txn.ts): a scan yields to the event loop between batches, so other transactions
// commit in the middle of the block, which must keep reading its own snapshot and be
// validated against it. Every appended value is unique in the run. A seed fixes each
// client's plan; the interleaving is the scheduler's.
import type { Op } from './history.js'
import { rng } from '../rng.js'

/** A transaction to run: its operations (reads unanswered) and where a filler scan goes, if any. */
export interface PlannedTxn {
  ops: Op[]
  /** The scan runs before ops[scanAt] (1 … ops.length - 1). */
  scanAt?: number
}

export interface WorkloadShape {
  clients: number
  /** Transactions per client. */
  txns: number
  /** Keys a client's window holds at a time. */
  active: number
  /** Keys the window slides by. */
  stride: number
  /** Transactions a client runs before its window slides. */
  window_txns: number
}

export const default_shape: Omit<WorkloadShape, 'clients' | 'txns'> = { active: 6, stride: 3, window_txns: 10 }

/** The keys a workload of `shape` touches: 0 … keyCount(shape) - 1. */
export function keyCount(shape: WorkloadShape): number {
  return Math.ceil(shape.txns / shape.window_txns) * shape.stride + shape.active
}

/**
 * The transactions of one client, reads unanswered (value null). `valueBase` makes its
 * values unique across clients and runs: values are valueBase + 1, + 2, …
 */
export function planClient(seed: number, client: number, shape: WorkloadShape, valueBase: number): PlannedTxn[] {
  const random = rng(seed * 7919 + client)
  const pick = (n: number) => Math.floor(random() * n)
  let value = valueBase
  const plans: PlannedTxn[] = []
  for (let i = 0; i < shape.txns; i += 1) {
    const base = Math.floor(i / shape.window_txns) * shape.stride
    const key = () => base + pick(shape.active)
    const ops: Op[] = []
    if (random() < 0.25) {
      const keys = new Set(Array.from({ length: 2 + pick(3) }, key))
      for (const k of keys) ops.push({ f: 'r', key: k, value: null })
    } else {
      const n = 1 + pick(4)
      while (ops.length < n) {
        const k = key()
        const roll = random()
        if (roll < 0.3) ops.push({ f: 'r', key: k, value: null }, { f: 'append', key: k, value: ++value })
        else if (roll < 0.4) ops.push({ f: 'append', key: k, value: ++value }, { f: 'append', key: k, value: ++value })
        else if (roll < 0.7) ops.push({ f: 'append', key: k, value: ++value })
        else ops.push({ f: 'r', key: k, value: null })
      }
    }
    // Read-only blocks scan more often: read skew shows in them.
    const scan = ops.length > 1 && random() < (readOnly(ops) ? 0.6 : 0.2)
    plans.push(scan ? { ops, scanAt: 1 + pick(ops.length - 1) } : { ops })
  }
  return plans
}

/** Whether a planned transaction only reads. */
export const readOnly = (ops: Op[]) => ops.every((op) => op.f === 'r')
