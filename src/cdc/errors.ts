// Errors of the change tail, in the one error family (src/coded-error.ts; docs/api.md,
// errors): `lsn_expired` is 410 with `oldest_lsn` in the body; `bad_request` 400.
import { CodedError } from '../coded-error.js'

/** `after` names history the WAL no longer retains: events after it may be missing. */
export class LsnExpiredError extends CodedError<'lsn_expired'> {
  /** The `after` the caller asked for. */
  readonly after: number
  /** Oldest LSN still retained: a client can restart with `after = oldest_lsn - 1` (or no `after`). */
  readonly oldest_lsn: number

  constructor(after: number, oldest_lsn: number) {
    super('lsn_expired', `the change tail after LSN ${after} is no longer retained; the oldest retained LSN is ${oldest_lsn}`, { oldest_lsn })
    this.after = after
    this.oldest_lsn = oldest_lsn
  }
}

/** A tail request the caller got wrong (a malformed `after`, `limit` or `wait_ms`, or an `after` this database never reached). */
export class TailRequestError extends CodedError<'bad_request'> {
  constructor(message: string) {
    super('bad_request', message)
  }
}
