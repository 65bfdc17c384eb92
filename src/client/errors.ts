// The one error a client call fails with (docs/client.md, "Errors"): a server's answer
// (its `code`, HTTP `status` and sentence, the rest of its body in `details`), or no
// answer at all (`network_error`, `timeout`, `aborted`, status undefined), so a caller
// can tell "the server refused" from "the server was not reached" by `status`.
// A CodedError, as every error users meet (src/coded-error.ts). Browser-safe: no Node
// import (docs/architecture.md, "Layers").
import { CodedError } from '../coded-error.js'
import type { ErrorCode } from '../http/wire/error-codes.js'

/** Codes of a call that got no answer from a server. */
export type UnansweredCode = 'network_error' | 'timeout' | 'aborted'

/** A server's code, or an answer that was no error body (a proxy's page): `http_<status>`. */
export type ClientErrorCode = ErrorCode | UnansweredCode | `http_${number}`

/** `details`: the rest of the server's error body (`line`, `fields`, `budget`, `retry_after_s`, `primary`, `oldest_lsn`, …), frozen. */
export class TenantdbError extends CodedError<ClientErrorCode> {
  // Kept by name: a minified bundle renames the class, and callers match on it.
  override readonly name = 'TenantdbError'
  /** The HTTP status of the server's answer; undefined when there was none. */
  readonly status: number | undefined
  /** A lost first-committer-wins race: nothing was changed, and the call may be retried as it is. */
  readonly conflict: boolean

  constructor(code: ClientErrorCode, message: string, options: { status?: number; conflict?: boolean; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(code, message, Object.freeze({ ...options.details }), options.cause === undefined ? undefined : { cause: options.cause })
    this.status = options.status
    this.conflict = options.conflict ?? code === 'conflict'
  }

  /** Whether the call got no answer (the server down or unreachable, the time limit, the caller's abort). */
  get unanswered(): boolean {
    return this.status === undefined
  }
}

/** Characters of a plain-text answer kept as the message of an `http_<status>` error. */
const plain_text_message_chars_max = 500

/**
 * The error of a server's error answer: its JSON body `{error, code, …}`, or
 * `http_<status>` for a body that is none, whose message is the body when it is plain
 * text (a proxy's sentence says what went wrong), else a sentence saying so.
 */
export function answeredError(status: number, body: unknown, contentType: string | null = null): TenantdbError {
  if (body !== null && typeof body === 'object' && typeof (body as { code?: unknown }).code === 'string' && typeof (body as { error?: unknown }).error === 'string') {
    const { error, code, conflict, ...details } = body as { error: string; code: ErrorCode; conflict?: unknown }
    return new TenantdbError(code, error, { status, conflict: conflict === true, details })
  }
  const text = typeof body === 'string' && contentType?.startsWith('text/plain') === true ? body.trim().slice(0, plain_text_message_chars_max) : ''
  return new TenantdbError(`http_${status}`, text !== '' ? text : `the server answered ${status} without an error body`, { status })
}

/** The error of a call that got no answer: the caller's abort, its time limit, or a failed connection. */
export function unansweredError(code: UnansweredCode, message: string, cause?: unknown): TenantdbError {
  return new TenantdbError(code, message, cause === undefined ? {} : { cause })
}
