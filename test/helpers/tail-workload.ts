// The write side of the change-tail crash test (test/crash-tail-kill9.test.ts): writers
// whose every transaction is identifiable and whose change events are known in
// advance. Each transaction is one atomic block that inserts a `txns` row naming it
// (id, writer, seq) plus 0–3 writes to rows of `items` that only this writer touches.
// The `txns` row is never deleted, so the final state of the directory says which
// transactions committed, and the expected events of a transaction do not depend on
// how the writers interleave.
//
// A transaction whose answer the kill swallowed is pending: the writer asks the next
// server whether its `txns` row exists (`resolvePending` in the test) before writing
// again, so its model of its rows, and therefore the expected changes of its next
// transactions, stays exact whichever way the pending one went.
import type { TailChange } from '../../src/cdc/index.js'
import { rng } from './rng.js'

export const tail_schema = `collection txns { id: int primary, writer: int, seq: int }
collection items { id: int primary, writer: int, v: int, tag: string = "x" }
`

export interface ItemRow { id: number; writer: number; v: number; tag: string }

/** One transaction a writer sent, and what became of it as far as the writer knows. */
export interface Attempt {
  /** The id of its `txns` row: unique across the run. */
  txn: number
  writer: number
  seq: number
  text: string
  params: Record<string, string>
  /** The change events it must produce, in order (docs/api.md, "Change tail"). */
  changes: TailChange[]
  /** The LSN the server acknowledged (2xx), if it answered. */
  acked_lsn?: number
  /** What the writer's check on a later server found: true when its `txns` row was there. */
  found_after_restart?: boolean
}

export class TxnWriter {
  readonly #items = new Map<number, ItemRow>()
  readonly #random: () => number
  #seq = 0
  #nextItem: number
  /** Sent, with no answer: resolve it before writing again. */
  pending: Attempt | undefined

  constructor(readonly writer: number, seed: number) {
    this.#random = rng(seed)
    this.#nextItem = (writer + 1) * 1_000_000
  }

  /** Rows of `items` this writer believes are stored now. */
  get items(): ReadonlyMap<number, ItemRow> {
    return this.#items
  }

  /**
   * The next transaction, not yet applied to the model (`settle` does that). With
   * `withInsert`, it inserts a new item whatever else it does (a sentinel every
   * consumer, the one following `items` only too, must see).
   */
  next(withInsert = false): Attempt {
    this.#seq += 1
    const seq = this.#seq
    const txn = (this.writer + 1) * 1_000_000 + seq
    const statements = [`insert txns {id: ${txn}, writer: ${this.writer}, seq: ${seq}}`]
    const changes: TailChange[] = [{ collection: 'txns', op: 'insert', key: txn, row: { id: txn, writer: this.writer, seq } }]
    const touched = new Set<number>()
    // Some transactions write no item: a consumer of `items` only must skip them.
    const writes = withInsert ? 1 : Math.floor(this.#random() * 4)
    for (let i = 0; i < writes; i += 1) {
      const [text, itemChanges] = withInsert ? this.#insert(1) : this.#write(touched)
      statements.push(text)
      changes.push(...itemChanges)
      for (const c of itemChanges) touched.add(c.key as number)
    }
    return { txn, writer: this.writer, seq, text: `atomic { ${statements.join('; ')} }`, params: {}, changes }
  }

  /**
   * A large transaction: a new item with a `tag` of `tag_bytes` (different for each
   * transaction), and the delete of the writer's previous one, so the WAL grows fast
   * (across segments) while the stored rows stay few.
   */
  nextLarge(tag_bytes: number): Attempt {
    this.#seq += 1
    const seq = this.#seq
    const txn = (this.writer + 1) * 1_000_000 + seq
    const id = this.#nextItem++
    const tag = String.fromCharCode(97 + (seq % 26)).repeat(tag_bytes)
    const statements = [`insert txns {id: ${txn}, writer: ${this.writer}, seq: ${seq}}`, `insert items {id: ${id}, writer: ${this.writer}, v: ${seq}, tag: $tag}`]
    const changes: TailChange[] = [
      { collection: 'txns', op: 'insert', key: txn, row: { id: txn, writer: this.writer, seq } },
      { collection: 'items', op: 'insert', key: id, row: { id, writer: this.writer, v: seq, tag } },
    ]
    for (const old of this.#items.keys()) {
      statements.push(`items | where id == ${old} | delete`)
      changes.push({ collection: 'items', op: 'delete', key: old, row: null })
    }
    return { txn, writer: this.writer, seq, text: `atomic { ${statements.join('; ')} }`, params: { tag }, changes }
  }

  /** Applies a transaction known to have committed to the model of the writer's rows. */
  settle(attempt: Attempt, committed: boolean): void {
    if (!committed) return
    for (const change of attempt.changes) {
      if (change.collection !== 'items') continue
      if (change.row === null) this.#items.delete(change.key as number)
      else this.#items.set(change.key as number, change.row as unknown as ItemRow)
    }
  }

  /** One statement on rows no earlier statement of the transaction touched (one row write each, so the order of changes is the order of statements). */
  #write(touched: Set<number>): [string, TailChange[]] {
    const own = [...this.#items.keys()].filter((id) => !touched.has(id))
    const pick = own[Math.floor(this.#random() * own.length)]
    const v = Math.floor(this.#random() * 1_000_000)
    const roll = this.#random()
    if (pick !== undefined && roll < 0.3) {
      const row = { ...(this.#items.get(pick) as ItemRow), v }
      return [`items | where id == ${pick} | update {v: ${v}}`, [{ collection: 'items', op: 'update', key: pick, row: { ...row } }]]
    }
    if (pick !== undefined && roll < 0.45) {
      return [`items | where id == ${pick} | delete`, [{ collection: 'items', op: 'delete', key: pick, row: null }]]
    }
    if (roll < 0.6) {
      // An upsert of an own row (update) or of a new one (insert): the letter in the
      // commit header must tell them apart.
      const id = pick !== undefined && this.#random() < 0.5 ? pick : this.#nextItem++
      const row = { id, writer: this.writer, v, tag: 'u' }
      return [`upsert items {id: ${id}, writer: ${this.writer}, v: ${v}, tag: "u"}`, [{ collection: 'items', op: this.#items.has(id) ? 'update' : 'insert', key: id, row }]]
    }
    return this.#insert(1 + Math.floor(this.#random() * 3))
  }

  #insert(count: number): [string, TailChange[]] {
    const v = Math.floor(this.#random() * 1_000_000)
    const rows = Array.from({ length: count }, () => ({ id: this.#nextItem++, writer: this.writer, v, tag: 'x' }))
    return [
      `insert items [${rows.map((r) => `{id: ${r.id}, writer: ${r.writer}, v: ${r.v}}`).join(', ')}]`,
      rows.map((row) => ({ collection: 'items', op: 'insert' as const, key: row.id, row })),
    ]
  }
}
