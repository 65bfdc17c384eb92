// The address of one node's change tail (docs/api.md, "Change tail"), and one poll of
// it: the page, or what the answer means for the feed (tail-failure.ts).
import type { TailPage } from '../http/wire/tail.js'
import { unansweredError } from './errors.js'
import { answerVerdict, type Verdict } from './tail-failure.js'
import type { FetchFunction } from './transport.js'

export interface TailTarget {
  /** A node's base URL (`http://127.0.0.1:7070`; a trailing `/api/v1` is accepted too). */
  base: string
  tenant: string
  token: string
  /** Exclusive; undefined: from the oldest retained event. */
  after: number | undefined
  /** The server's filter: one collection only. */
  collection: string | undefined
}

/** The tail's URL at `target`, with `extra` parameters; `ws:`/`wss:` for a WebSocket. */
export function tailUrl(target: TailTarget, extra: Record<string, string | number>, websocket = false): string {
  const base = target.base.replace(/\/+$/, '').replace(/\/api\/v1$/, '')
  const params = new URLSearchParams()
  if (target.after !== undefined) params.set('after', String(target.after))
  if (target.collection !== undefined) params.set('collection', target.collection)
  for (const [name, value] of Object.entries(extra)) params.set(name, String(value))
  const url = `${base}/api/v1/t/${encodeURIComponent(target.tenant)}/tail?${params.toString()}`
  return websocket ? url.replace(/^http/, 'ws') : url
}

export type PollResult = { ok: true; page: TailPage } | { ok: false; verdict: Verdict }

/**
 * One poll. A connection that fails, or a body cut short, is a passing failure of
 * this node (nothing of the page counts); `signal`'s abort propagates as it is.
 */
export async function poll(fetcher: FetchFunction, target: TailTarget, query: { limit: number; wait_ms: number }, signal: AbortSignal, several_nodes: boolean): Promise<PollResult> {
  const url = tailUrl(target, query.wait_ms > 0 ? query : { limit: query.limit })
  try {
    const res = await fetcher(url, { headers: { authorization: `Bearer ${target.token}` }, signal })
    const text = await res.text()
    let body: unknown = text
    try { body = JSON.parse(text) } catch { /* a proxy's page: answeredError makes it http_<status> */ }
    if (res.status === 200) {
      if (typeof body !== 'object' || body === null || !Array.isArray((body as TailPage).events) || typeof (body as TailPage).last_lsn !== 'number') {
        return { ok: false, verdict: { retry: true, reason: 'a 200 answer that is no tail page', next_node: true } }
      }
      return { ok: true, page: body as TailPage }
    }
    const retryAfter = Number(res.headers.get('retry-after') ?? Number.NaN)
    return { ok: false, verdict: answerVerdict(res.status, body, Number.isFinite(retryAfter) ? retryAfter : undefined, several_nodes) }
  } catch (err) {
    if (signal.aborted) throw signal.reason
    return { ok: false, verdict: { retry: true, reason: unansweredError('network_error', `no answer from ${target.base} (${(err as Error).message})`, err).message, next_node: true } }
  }
}
