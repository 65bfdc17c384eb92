// What the threads of one server say to each other over a MessagePort
// (docs/architecture.md, "Every core"). The opening thread holds the committer; each
// worker thread serves HTTP over an attached database and sends it what it cannot
// answer alone.
import type { TenantUsage } from '../../database/index.js'
import type { Value } from '../../lang/ast.js'
import type { QueryResult } from '../../query/index.js'
import type { ErrorBody } from '../errors.js'
import type { ThreadMetrics } from '../metrics/index.js'

/** A request a worker hands to the opening thread, as the client sent it. */
export interface ForwardedRequest {
  method: string
  /** The URL as sent (before the canonical-path rewrite, which the opener does again). */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The body's bytes as received, or null for none. */
  body: Buffer | null
  /** The client's address (the throttle counts by it). */
  remote_address: string
}

/** The opener's answer to a forwarded request. */
export interface ForwardedAnswer {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: Buffer
}

/**
 * A statement that commits, as the query route of a worker hands it over once the
 * request passed every check there (token, scope, body): the opening thread runs the
 * statement alone, not the request again.
 */
export interface ForwardedQuery {
  tenant: string
  text: string
  params: Record<string, Value>
  /** `Service-Snapshot`, or null. */
  snapshot: string | null
  /** The worker's request id, for the opener's log line of a failure it logs. */
  request_id: string
}

/** How a forwarded statement ended: its result, or the error answer mapped on the opener. */
export type QueryOutcome =
  | { ok: true; result: QueryResult }
  | { ok: false; status: number; body: ErrorBody }

export type ToOpener =
  | { kind: 'ready' }
  | { kind: 'forward'; id: number; request: ForwardedRequest }
  | { kind: 'query'; id: number; query: ForwardedQuery }
  /** Tenant tokens' last uses seen by the worker: hash, ms since the epoch. */
  | { kind: 'uses'; uses: Array<[string, number]> }
  /**
   * Query durations (ms) since the last report and tail consumers reading now, for the
   * trends; what each tenant's statements used here since the last report (Database.drainUsage).
   */
  | { kind: 'trends'; durations_ms: number[]; tail_readers: number; usage: Array<[string, TenantUsage]> }
  | { kind: 'metrics'; id: number; metrics: ThreadMetrics }
  /** Log lines, each a JSON line, for the opening thread's one log output. */
  | { kind: 'log'; lines: string[] }
  | { kind: 'stopped' }
  | { kind: 'failed'; message: string }

export type ToWorker =
  | { kind: 'answer'; id: number; answer: ForwardedAnswer }
  | { kind: 'queried'; id: number; outcome: QueryOutcome }
  | { kind: 'refused'; id: number; message: string }
  /** Durable commits of the opener, in LSN order: the change tail of the worker hears them. */
  | { kind: 'commits'; lsns: number[]; payloads: Buffer[] }
  /** Asks for the worker's thread metrics (a scrape of GET /api/v1/metrics). */
  | { kind: 'metrics'; id: number }
  | { kind: 'stop' }
