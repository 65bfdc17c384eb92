// The one mapping from an error to an HTTP status and body (docs/api.md, "Errors"). It
// reads codes, never classes: every error users meet is a CodedError
// (src/coded-error.ts), and `answers` says, for each code any layer below can throw,
// which documented code, status and sentence the client gets. A code of the API's own
// catalogue (wire/error-codes.ts) answers as itself, the error's sentence and details in the body;
// the engine's codes (src/engine/engine-error.ts) and the codec's are translated, in
// sentences of the table's own (theirs name files and internals). The TypeScript
// compiler holds the table whole: a new engine code does not build until it has a row.
//
// Routes throw; the server's error handler calls mapError. The query route (declared
// `config: { failuresAre400: true }`) answers every failure of the query itself with 400;
// the other routes use each code's own status.
import type { LsnExpiredError, TailRequestError } from '../cdc/index.js'
import { CodedError, type ErrorDetails } from '../coded-error.js'
import type { CodecError } from '../codec/error.js'
import type { EngineErrorCode, NotPrimaryError } from '../database/index.js'
import type { DiagnosticCode } from '../lang/diagnostic.js'
import type { ConflictError } from '../mvcc/index.js'
import type { QueryErrorCode } from '../query/index.js'
import type { TenantErrorCode } from '../tenants/index.js'
import { body_bytes_max } from '../limits.js'
import { errorBody, error_statuses, type ErrorBody, type ErrorCode } from './errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Every failure of the request's own work is 400 (the query route: docs/api.md, "Errors"). */
    failuresAre400?: boolean
  }
}

export interface MappedError {
  status: number
  body: ErrorBody
  /** A bug or an unexpected failure: the server logs it. */
  log: boolean
}

/** How the API answers an error's code. */
export interface Answer {
  /** The documented code the body carries. */
  code: ErrorCode
  /** The sentence clients get instead of the error's own, whose details the body then leaves out. */
  say?: (details: ErrorDetails) => string
  /** Fields the body carries whatever the error (its details may set them). */
  adds?: Readonly<Record<string, unknown>>
  /** A bug or a failure of the server: logged. */
  log?: boolean
  /** The status, when it is not the code's own: `not_primary` from a node that is no follower is 503. */
  status?: (err: CodedError) => number
}

/** Every code the layers below HTTP throw that is not itself a code of the API's catalogue. */
export type TranslatedCode = EngineErrorCode | CodecError['code']

/** Codes whose status is the same on the query route as everywhere (not the query's own failure). */
const keeps_status_on_query_route: ReadonlySet<ErrorCode> = new Set([
  'unauthorized', 'forbidden', 'unknown_tenant', 'unknown_snapshot', 'not_found', 'payload_too_large',
  'rate_limited', 'quota_exceeded', 'storage_error', 'internal', 'shutting_down', 'storage_full', 'storage_unavailable', 'not_primary',
])

export const storage_error_message = 'a read met a damaged page; see /api/v1/health/detail'
export const wal_damage_message = 'a read met a damaged WAL frame (the change history); see /api/v1/health/detail'
export const internal_message = 'internal error; see the server log'

// What a failed write tells the client (docs/api.md, docs/operations.md "Disk full").
export const storage_full_message = 'the disk is full: nothing of this request was written; free space and retry'
export const outcome_unknown_message =
  'writing to disk failed: this write may or may not be durable; check whether it took effect before retrying, ' +
  'and restart the server (it accepts no more writes until then)'
export const fail_stopped_message =
  'the server stopped writing after a disk failure or an internal error: nothing of this request was written; ' +
  'restart the server (the cause is in /api/v1/health/detail)'
// An `internal` EngineError: the engine panicked in this request and stopped writing
// (docs/architecture.md, "The binding"). What it was doing may or may not have taken
// effect (a commit's completion, a compaction's checkpoint); the log has the panic.
export const engine_internal_message =
  'an internal error stopped the storage engine: what this request wrote may or may not have taken effect; ' +
  'the server accepts no more writes until it is restarted (see /api/v1/health/detail and the server log)'

const bug: Answer = { code: 'internal', say: () => internal_message, log: true }

/** The codes thrown below HTTP that the API names differently, or whose sentence is not for clients. */
const translated: { readonly [C in TranslatedCode]: Answer } = {
  corrupted: {
    code: 'storage_error',
    say: (d) => (typeof d.file === 'string' && d.file.startsWith('wal/') ? wal_damage_message : storage_error_message),
    log: true,
  },
  closed: { code: 'shutting_down', say: () => 'the server is shutting down' },
  // The gate refuses a follower's writes first (NotPrimaryError, with `primary`); the
  // engine's own refusal backs it up and knows no primary.
  not_primary: {
    code: 'not_primary',
    adds: { primary: null, outcome: 'not_written' },
    status: (err) => ((err as { follower?: unknown }).follower === false ? 503 : error_statuses.not_primary),
  },
  storage_full: { code: 'storage_full', say: () => storage_full_message, log: true },
  outcome_unknown: { code: 'storage_unavailable', say: () => outcome_unknown_message, adds: { outcome: 'unknown' }, log: true },
  fail_stopped: { code: 'storage_unavailable', say: () => fail_stopped_message, adds: { outcome: 'not_written' }, log: true },
  internal: { code: 'internal', say: () => engine_internal_message, log: true },
  // Nothing a client can do about these: the server's own mistake, or its environment's.
  locked: bug,
  io: bug,
  invalid_argument: bug,
  read_only: bug,
  backup_in_progress: bug,
  codec_refused: bug,
}

/** What every code answers with: the catalogue's codes as themselves, then the translated ones. */
export const answers: Readonly<Record<ErrorCode | TranslatedCode, Answer>> = {
  ...(Object.fromEntries(Object.keys(error_statuses).map((code) => [code, { code }])) as Record<ErrorCode, Answer>),
  ...translated,
}

/**
 * Every code an error below HTTP can carry into a request. The compiler checks each has
 * an answer: a code added to any of these without one does not build.
 */
export type ReachingCode =
  | QueryErrorCode | TenantErrorCode | DiagnosticCode | EngineErrorCode | CodecError['code']
  | ConflictError['code'] | NotPrimaryError['code'] | LsnExpiredError['code'] | TailRequestError['code']
type Unanswered = Exclude<ReachingCode, keyof typeof answers>
const every_code_answered: [Unanswered] extends [never] ? true : Unanswered = true
void every_code_answered

/** The answer to an error's code, or undefined for a code no client is meant to meet (a CLI's). */
export function answerFor(code: string): Answer | undefined {
  return Object.hasOwn(answers, code) ? answers[code as keyof typeof answers] : undefined
}

export function mapError(err: unknown, route: { failuresAre400: boolean }): MappedError {
  const base = classify(err)
  if (!route.failuresAre400 || keeps_status_on_query_route.has(base.body.code)) return base
  return { ...base, status: 400 }
}

function classify(err: unknown): MappedError {
  if (err instanceof CodedError) {
    const answer = answerFor(err.code) ?? bug
    const status = answer.status?.(err) ?? error_statuses[answer.code]
    const said = answer.say?.(err.details)
    const body = said === undefined
      ? errorBody(answer.code, err.message, { ...answer.adds, ...err.details })
      : errorBody(answer.code, said, answer.adds)
    return { status, body, log: answer.log ?? false }
  }
  // fastify's own errors: the body limit, a malformed request.
  const fastify = err as { statusCode?: unknown; code?: unknown; message?: unknown }
  if (fastify !== null && typeof fastify === 'object') {
    if (fastify.statusCode === 413 || fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return mapped('payload_too_large', `request body exceeds ${body_bytes_max} bytes`)
    }
    if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
      return mapped('bad_request', String(fastify.message))
    }
  }
  return { status: error_statuses.internal, body: errorBody('internal', internal_message), log: true }
}

function mapped(code: ErrorCode, error: string): MappedError {
  return { status: error_statuses[code], body: errorBody(code, error), log: false }
}
