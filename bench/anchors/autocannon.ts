// autocannon drives HTTP load on loopback from this process while the server runs in
// a child process of its own, so the two do not share an event loop.
import autocannon from 'autocannon'

export interface HttpLoad {
  url: string
  connections: number
  durationS: number
  method: 'GET' | 'POST'
  headers: Record<string, string>
  /** Request bodies, used in turn (made beforehand, so the client's cost stays flat). */
  bodies?: readonly string[]
}

export interface HttpLoadResult {
  requests_per_s: number
  /** Requests answered over the whole run. */
  requests_total: number
  latency_p99_ms: number
  errors: number
  non2xx: number
}

export async function httpLoad(load: HttpLoad): Promise<HttpLoadResult> {
  let turn = 0
  const bodies = load.bodies
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.durationS,
    requests: [{
      method: load.method,
      headers: load.headers,
      ...(bodies !== undefined && {
        setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[turn++ % bodies.length] as string }),
      }),
    }],
  })
  return {
    requests_per_s: result.requests.average,
    requests_total: result.requests.total,
    latency_p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }
}
