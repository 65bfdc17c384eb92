// What ends a change feed and what only interrupts it (docs/client.md, "The change
// feed"): a server's answer to a poll or an upgrade, or a WebSocket's close code, read
// as "reconnect" (after a backoff, perhaps on the next node) or "end with this error".
import { answeredError, TenantdbError } from './errors.js'

export type Verdict =
  | { retry: true; reason: string; /** Try the next of `urls`: this node cannot serve now. */ next_node: boolean; /** The least wait the server asked for. */ wait_ms?: number }
  | { retry: false; error: TenantdbError }

/**
 * A poll's (or an upgrade probe's) non-200 answer. 5xx (`shutting_down`,
 * `storage_unavailable`, a proxy's 502), 408 and 429 are passing; every other 4xx
 * ends the feed: `lsn_expired` (410, `details.oldest_lsn`), `unauthorized` (401: a
 * revoked or expired token), `unknown_tenant` (404: a deleted tenant),
 * `unknown_collection`, `tenant_suspended`, `forbidden`. An `after` beyond a node's
 * newest commit is passing only when there are other nodes (a follower that lags);
 * on the only node it means a different or restored directory.
 */
export function answerVerdict(status: number, body: unknown, retry_after_s: number | undefined, several_nodes: boolean): Verdict {
  const error = answeredError(status, body)
  if (status >= 500) {
    const meaning = error.code === 'shutting_down' ? 'the server is shutting down' : 'the server cannot serve the feed now'
    return { retry: true, reason: `${meaning} (${status} ${error.code})`, next_node: true }
  }
  if (status === 408 || status === 429) {
    const asked = typeof error.details.retry_after_s === 'number' ? error.details.retry_after_s : retry_after_s
    return { retry: true, reason: `${status} ${error.code}`, next_node: false, ...(asked === undefined ? {} : { wait_ms: asked * 1000 }) }
  }
  if (several_nodes && status === 400 && error.code === 'bad_request' && /beyond the newest commit/.test(error.message)) {
    return { retry: true, reason: 'a node behind the position', next_node: true }
  }
  return { retry: false, error }
}

/**
 * A WebSocket's close after it opened (docs/api.md, "Change tail"): 1001 (shutdown),
 * 1011 (failure), 1013 (consumer too slow), 1006 (the connection dropped) and any code
 * the server does not send reconnect; 4401, 4410 and 1009 end the feed with the HTTP
 * error they stand for.
 */
export function closeVerdict(code: number, reason: string): Verdict {
  const details = { close_code: code, close_reason: reason }
  if (code === 4410) {
    const oldest = /oldest_lsn=(\d+)/.exec(reason)?.[1]
    return { retry: false, error: new TenantdbError('lsn_expired', `the change feed's position is older than the server retains (${reason})`, { status: 410, details: { ...details, ...(oldest === undefined ? {} : { oldest_lsn: Number(oldest) }) } }) }
  }
  if (code === 4401) return { retry: false, error: new TenantdbError('unauthorized', `the change feed's token was revoked or expired, or its tenant deleted (${reason})`, { status: 401, details }) }
  if (code === 1009) return { retry: false, error: new TenantdbError('payload_too_large', `the server refused a message of the client (${reason})`, { status: 413, details }) }
  const said = reason === '' ? '' : `: ${reason}`
  return { retry: true, reason: `${close_meanings[code] ?? 'the server closed the connection'} (close ${code}${said})`, next_node: code !== 1013 }
}

/** The passing close codes, in words for a UI (TailStatus's `reason`). */
const close_meanings: Record<number, string> = {
  1001: 'the server is shutting down',
  1006: 'the connection was lost',
  1011: 'the server failed',
  1013: 'the feed fell behind; it resumes where it left off',
}
