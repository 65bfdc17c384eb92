// The shape of a list-append history (Elle's list-append model, by hand: there is no
// Elle to run here). Every key holds a list, initially empty; a transaction appends
// values to some keys and reads whole lists of others, in order. Every appended value
// is unique in the history, so a read names exactly which writes it saw, and in what
// order they were installed.

/** An append of `value` to the list at `key`. */
export interface Append { f: 'append'; key: number; value: number }

/** A read of the whole list at `key`: null when the transaction's outcome hides it (fail, info). */
export interface Read { f: 'r'; key: number; value: number[] | null }

export type Op = Append | Read

/**
 * ok: committed, its reads are known. fail: certainly did not commit (a reported
 * conflict). info: indeterminate (the request was in flight when the server died):
 * it may or may not have committed, and its reads are unknown (Elle's :info).
 */
export type Outcome = 'ok' | 'fail' | 'info'

export interface Txn {
  /** Unique in the history. */
  id: number
  /** The client that ran it (one transaction at a time per client). */
  process: number
  type: Outcome
  ops: Op[]
  /** Logical times on one clock shared by every client: sent, then answered (or known lost). */
  invoke: number
  complete: number
}

export type History = Txn[]

/**
 * What the checker reports. Not part of snapshot isolation, and so never reported:
 * G2, a cycle with two or more read-write anti-dependencies (write skew), which
 * snapshot isolation allows.
 */
export type AnomalyClass =
  | 'G0' // a cycle of write-write dependencies only
  | 'G1a' // aborted read: a read saw a value a failed transaction appended
  | 'G1b' // intermediate read: a read ended at a value its writer appended over in the same transaction
  | 'G1c' // circular information flow: a cycle of ww and wr dependencies, at least one wr
  | 'G-single' // read skew: a cycle with exactly one rw anti-dependency
  | 'lost-update' // two committed transactions read the same version of a key and both appended to it
  | 'lost-append' // a committed append is missing from a read that began after it was acknowledged
  | 'incompatible-order' // two reads of a key where neither is a prefix of the other
  | 'duplicate-elements' // a read holds one value twice
  | 'garbage-read' // a read holds a value no transaction appended
  | 'internal' // a transaction's read disagrees with its own earlier reads and appends

/** A dependency between two transactions: write-write, write-read, read-write (anti-dependency). */
export type EdgeKind = 'ww' | 'wr' | 'rw'

/** One step of a cycle: `from` precedes `to` by a `kind` dependency on `key`. */
export interface Step { from: number; to: number; kind: EdgeKind; key: number }

export interface Anomaly {
  class: AnomalyClass
  /** A sentence a human can check against the history. */
  explanation: string
  /** The transactions involved. */
  txns: number[]
  /** For cycles: the dependencies around it. */
  cycle?: Step[]
}

/** A cycle snapshot isolation allows: G2, two or more rw edges (write skew). */
export interface AllowedCycle {
  class: 'G2'
  explanation: string
  txns: number[]
  cycle: Step[]
}

export interface CheckResult {
  /** No anomaly of any reported class. */
  valid: boolean
  anomalies: Anomaly[]
  /** Cycles found and allowed under snapshot isolation (G2: two or more rw edges). */
  allowed: AllowedCycle[]
  stats: { ok: number; fail: number; info: number; edges: Record<EdgeKind, number> }
}
