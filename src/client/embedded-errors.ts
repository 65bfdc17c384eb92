// The embedding API's errors as the client's (docs/client.md, "Errors"): every coded
// error (src/coded-error.ts: QueryError, EelError, TenantError, EngineError…) becomes
// a TenantdbError with the code, status and body fields the HTTP API would answer it
// with, through the server's own table (src/http/error-mapping.ts), so a caller handles
// an embedded database's refusals and a server's alike. Node-only: loaded with the
// embedded database, never by a browser build.
import { CodedError } from '../coded-error.js'
import { mapError } from '../http/error-mapping.js'
import { TenantdbError, unansweredError } from './errors.js'

/** `failuresAre400`: the query's own failures, answered 400 as the query route does. */
export function clientError(err: unknown, query: boolean): TenantdbError {
  if (err instanceof TenantdbError) return err
  if (!(err instanceof CodedError)) {
    // Not a refusal of the database's (a TypeError of a bad argument, a bug): its own sentence.
    return new TenantdbError('internal', err instanceof Error ? err.message : String(err), { status: 500, cause: err })
  }
  const { status, body } = mapError(err, { failuresAre400: query })
  const { error, code, conflict, ...details } = body
  // A server hides the sentence of an error no client is meant to meet; here the caller
  // owns the process (there is no server log to read), so it is kept.
  if (code === 'internal') return new TenantdbError(code, err.message, { status, details: { ...err.details, reason: err.code }, cause: err })
  return new TenantdbError(code, error, { status, conflict, details, cause: err })
}

/** Runs `fn`, failing with the client's error; the caller's signal ends the wait (not the work). */
export async function mapped<T>(query: boolean, signal: AbortSignal | undefined, fn: () => T | Promise<T>): Promise<T> {
  if (signal?.aborted === true) throw unansweredError('aborted', 'the call was aborted by its caller')
  let work: Promise<T>
  try {
    work = Promise.resolve(fn())
  } catch (err) {
    throw clientError(err, query)
  }
  const settled = work.catch((err: unknown) => { throw clientError(err, query) })
  if (signal === undefined) return settled
  let onAbort = (): void => {}
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(unansweredError('aborted', 'the call was aborted by its caller'))
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([settled, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
    settled.catch(() => {})
  }
}
