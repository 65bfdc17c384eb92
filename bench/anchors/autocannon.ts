// autocannon drives HTTP load on loopback from this process while the server runs in
// a child process of its own, so the two do not share an event loop.
import autocannon from 'autocannon'
import { nowMs } from '../harness/timing.js'

export interface HttpLoad {
  url: string
  connections: number
  /** A timed run: this many seconds, then every connection is closed. */
  durationS?: number
  /**
   * Or exactly this many requests, every answer awaited: a timed run drops the
   * requests in flight at its end, which the server may still have carried out, so a
   * count of what the server did is compared with an amount run's answers.
   */
  amount?: number
  method: 'GET' | 'POST'
  headers: Record<string, string>
  /** Request bodies, used in turn (made beforehand, so the client's cost stays flat). */
  bodies?: readonly string[]
  /** Or the body of request number n (0, 1, …): a different one every time. */
  body?: (n: number) => string
  /** Request paths used in turn, in place of the url's own (for GETs that vary). */
  paths?: readonly string[]
}

export interface HttpLoadResult {
  requests_per_s: number
  latency_p99_ms: number
  errors: number
  non2xx: number
  /** Answers received (every status). */
  answered: number
  /** Answers with a 2xx status. */
  ok: number
}

function bodyOf(load: HttpLoad): ((n: number) => string) | undefined {
  const bodies = load.bodies
  if (bodies !== undefined) return (n) => bodies[n % bodies.length] as string
  return load.body
}

export async function httpLoad(load: HttpLoad): Promise<HttpLoadResult> {
  if ((load.durationS === undefined) === (load.amount === undefined)) throw new Error('an HTTP load has either a duration or an amount')
  let turn = 0
  const body = bodyOf(load)
  const paths = load.paths
  const vary = body !== undefined || paths !== undefined
  let lastAnswerMs = 0
  const started = nowMs()
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: load.url,
      connections: load.connections,
      ...(load.amount !== undefined ? { amount: load.amount } : { duration: load.durationS as number }),
      requests: [{
        method: load.method,
        headers: load.headers,
        ...(vary && {
          setupRequest: (request: autocannon.Request) => {
            const n = turn++
            return { ...request, ...(body !== undefined && { body: body(n) }), ...(paths !== undefined && { path: paths[n % paths.length] as string }) }
          },
        }),
      }],
    }, (err, done) => err === null || err === undefined ? resolve(done) : reject(err as Error))
    if (load.amount !== undefined) instance.on('response', () => { lastAnswerMs = nowMs() })
  })
  const answered = result.requests.total
  return {
    // A timed run: autocannon's mean of its per-second counts. An amount run ends
    // with up to a second of idle sampling, so its rate is answers over the time to
    // the last one.
    requests_per_s: load.amount !== undefined ? answered / ((lastAnswerMs - started) / 1000) : result.requests.average,
    latency_p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    answered,
    ok: result['2xx'],
  }
}
