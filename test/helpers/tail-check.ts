// The checker of the change-tail crash test (test/crash-tail-kill9.test.ts): given what
// the writers sent and had acknowledged, the final state of the directory, and what
// each consumer received across every kill and resume, the anomalies as sentences.
//
// "Committed" is what the final state holds: a transaction is committed iff its
// `txns` row is there (rows of `txns` are never deleted). Then, for every consumer
// following the whole tenant:
//   - every committed transaction appears exactly once, with exactly the changes it
//     was written with, at the LSN it was acknowledged with (if it was);
//   - nothing else appears (no transaction that is not committed, nothing unknown);
//   - LSNs strictly increase (order, and no duplicate across resumes), and each
//     writer's transactions come in the order it sent them;
// and a consumer following one collection gets exactly the committed transactions'
// changes to it, in LSN order. Separately: every acknowledged transaction is
// committed, a transaction a writer found after a restart is still there at the
// end, and one it did not find never appears later; and the changes the tail
// delivered, applied in order to nothing, give exactly the final rows.
import type { TailEvent } from '../../src/cdc/index.js'
import type { Attempt } from './tail-workload.js'

export interface ConsumerLog {
  name: string
  /** Only this collection's changes (undefined: the whole tenant). */
  collection?: string | undefined
  events: TailEvent[]
}

export interface FinalState {
  /** `txns` rows by id. */
  txns: Map<number, Record<string, unknown>>
  /** `items` rows by id. */
  items: Map<number, Record<string, unknown>>
}

/** JSON with sorted keys: rows compare by content, not by the order of their fields. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v))
}

const limit = 30

export function checkTail(tenant: string, attempts: Attempt[], final: FinalState, consumers: ConsumerLog[]): string[] {
  const problems: string[] = []
  const byTxn = new Map(attempts.map((a) => [a.txn, a]))
  const committed = new Set(final.txns.keys())
  for (const a of attempts) {
    if (a.acked_lsn !== undefined && !committed.has(a.txn)) problems.push(`transaction ${a.txn} was acknowledged at LSN ${a.acked_lsn} and is not in the final state`)
    if (a.found_after_restart === true && !committed.has(a.txn)) problems.push(`transaction ${a.txn} was found after a restart and is not in the final state`)
    if (a.found_after_restart === false && committed.has(a.txn)) problems.push(`transaction ${a.txn} was not there after a restart and is in the final state`)
  }
  for (const txn of committed) if (!byTxn.has(txn)) problems.push(`the final state holds transaction ${txn}, which no writer sent`)

  // LSN of each committed transaction: acknowledged, or as the whole-tenant consumers saw it.
  const lsnOf = new Map<number, number>()
  for (const a of attempts) if (a.acked_lsn !== undefined) lsnOf.set(a.txn, a.acked_lsn)
  const whole = consumers.filter((c) => c.collection === undefined)
  for (const consumer of whole) {
    const seen = new Map<number, number>() // txn -> LSN where this consumer got it
    const lastSeq = new Map<number, number>()
    let previous = 0
    for (const event of consumer.events) {
      const where = `${consumer.name}: the event at LSN ${event.lsn}`
      if (event.lsn <= previous) problems.push(`${where} came after LSN ${previous} (out of order, or delivered again)`)
      previous = Math.max(previous, event.lsn)
      if (event.tenant !== tenant) problems.push(`${where} is of tenant ${event.tenant}`)
      const markers = event.changes.filter((c) => c.collection === 'txns' && c.op === 'insert')
      const txn = markers[0]?.key
      if (markers.length !== 1 || typeof txn !== 'number') { problems.push(`${where} names ${markers.length} transactions: ${canonical(event.changes)}`); continue }
      const attempt = byTxn.get(txn)
      if (attempt === undefined) { problems.push(`${where} is transaction ${txn}, which no writer sent`); continue }
      const before = seen.get(txn)
      if (before !== undefined) problems.push(`${where} repeats transaction ${txn} (first at LSN ${before})`)
      seen.set(txn, event.lsn)
      if (!committed.has(txn)) problems.push(`${where} is transaction ${txn}, which is not in the final state`)
      if (canonical(event.changes) !== canonical(attempt.changes)) {
        problems.push(`${where} (transaction ${txn}) holds ${canonical(event.changes)}; it was written as ${canonical(attempt.changes)}`)
      }
      const known = lsnOf.get(txn)
      if (known !== undefined && known !== event.lsn) problems.push(`${where} is transaction ${txn}, known at LSN ${known}`)
      lsnOf.set(txn, known ?? event.lsn)
      const seq = lastSeq.get(attempt.writer) ?? 0
      if (attempt.seq <= seq) problems.push(`${where} is writer ${attempt.writer}'s #${attempt.seq}, after its #${seq}`)
      lastSeq.set(attempt.writer, Math.max(seq, attempt.seq))
    }
    for (const txn of committed) {
      if (seen.has(txn)) continue
      const a = byTxn.get(txn)
      problems.push(`${consumer.name}: committed transaction ${txn} never arrived (${a?.acked_lsn === undefined ? 'unacknowledged' : `acknowledged at LSN ${a.acked_lsn}`})`)
    }
  }

  // A filtered consumer: the committed transactions' changes to its collection, in LSN order.
  const ordered = [...committed].filter((txn) => lsnOf.has(txn) && byTxn.has(txn)).sort((x, y) => (lsnOf.get(x) as number) - (lsnOf.get(y) as number))
  for (const consumer of consumers.filter((c) => c.collection !== undefined)) {
    const expected = ordered
      .map((txn) => ({ lsn: lsnOf.get(txn) as number, changes: (byTxn.get(txn) as Attempt).changes.filter((c) => c.collection === consumer.collection) }))
      .filter((e) => e.changes.length > 0)
    const got = consumer.events.map((e) => ({ lsn: e.lsn, changes: e.changes }))
    for (let i = 0; i < Math.max(expected.length, got.length); i += 1) {
      const [want, have] = [expected[i], got[i]]
      if (canonical(want) === canonical(have)) continue
      problems.push(`${consumer.name}: event ${i + 1} of ${got.length} is ${have === undefined ? 'missing' : `LSN ${have.lsn}: ${canonical(have.changes)}`}; ` +
        `expected ${want === undefined ? 'none' : `LSN ${want.lsn}: ${canonical(want.changes)}`} (${expected.length} expected)`)
      break
    }
  }

  // The changes delivered, applied in order to an empty tenant, are the final rows.
  const reference = whole[0]
  if (reference !== undefined) {
    const rows = { txns: new Map<number, unknown>(), items: new Map<number, unknown>() }
    for (const event of reference.events) {
      for (const change of event.changes) {
        const table = change.collection === 'txns' ? rows.txns : change.collection === 'items' ? rows.items : undefined
        if (table === undefined) { problems.push(`${reference.name}: a change to unknown collection ${change.collection}`); continue }
        if (change.op === 'delete') table.delete(change.key as number)
        else table.set(change.key as number, change.row)
      }
    }
    for (const name of ['txns', 'items'] as const) {
      const [replayed, stored] = [rows[name], final[name]]
      for (const [id, row] of stored) {
        if (canonical(replayed.get(id)) !== canonical(row)) problems.push(`${name} ${id}: stored ${canonical(row)}, the tail's changes give ${canonical(replayed.get(id)) ?? 'no row'}`)
      }
      for (const [id, row] of replayed) if (!stored.has(id)) problems.push(`${name} ${id}: the tail's changes give ${canonical(row)}, not stored`)
    }
  }
  return problems.length > limit ? [...problems.slice(0, limit), `… ${problems.length - limit} more`] : problems
}
