// A transaction held open across application code (docs/api.md, "Transactions in
// code"): the handle `tenant.transaction(fn)` gives `fn`. Its statements run one at a
// time, in the order they were called, on one snapshot and one transaction view, so
// each sees the writes of the ones before it; nothing is visible to others until the
// runner commits the view after `fn` resolves (run.ts). Once the transaction ended
// (committed, failed or thrown out of), its handle refuses statements.
import type { Value } from '../../lang/ast.js'
import { TxnView, type Snapshot } from '../../txn/index.js'
import { QueryError } from '../errors.js'
import type { QueryResult } from '../exec/index.js'

export interface TransactionOptions {
  /** How many times a transaction that lost a first-committer-wins race runs again (default 0). */
  retries?: number
  rows_max?: number
  time_ms_max?: number
}

type RunStatement = (view: TxnView, text: string, params: Record<string, Value>, started: number) => Promise<QueryResult>

export class Transaction {
  readonly #view: TxnView
  readonly #run: RunStatement
  /** The statement running now: the next one waits for it. */
  #last: Promise<unknown> = Promise.resolve()
  #ended = false
  /** A statement that failed leaves the view with part of its writes: the transaction is over. */
  #failed: unknown = undefined

  constructor(snapshot: Snapshot, run: RunStatement) {
    this.#view = new TxnView(snapshot)
    this.#run = run
  }

  /** The snapshot's LSN: every statement of the transaction reads this version. */
  get lsn(): number {
    return this.#view.snapshot.lsn
  }

  /** Runs one statement inside the transaction; its writes are committed with the rest, or not at all. */
  query(text: string, params: Record<string, Value> = {}): Promise<QueryResult> {
    const next = this.#last.then(async () => {
      if (this.#ended) throw new QueryError('not_allowed_here', 'this transaction has ended; its statements can no longer run')
      if (this.#failed !== undefined) throw new QueryError('not_allowed_here', 'an earlier statement of this transaction failed; nothing of it will be committed')
      try {
        return await this.#run(this.#view, text, params, Date.now())
      } catch (err) {
        // A statement that wrote part of its rows before failing cannot be taken back
        // from the view: the transaction can only be abandoned.
        this.#failed = err
        throw err
      }
    })
    this.#last = next.catch(() => undefined)
    return next
  }

  /**
   * Ends the transaction once the statements already called have settled (one left
   * running would write into a committed view): no statement runs after this. Returns
   * the view to commit; throws the failure of a statement, if one failed.
   */
  async end(): Promise<TxnView> {
    await this.#last
    this.#ended = true
    if (this.#failed !== undefined) throw this.#failed
    return this.#view
  }
}
