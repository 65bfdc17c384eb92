// The real `tenantdb serve` logs (docs/operations.md, "Logs"): stdout is JSON lines only
// (the banner is on stderr), one line per request when it is answered (a WebSocket
// tail: when it closes) with its method, route pattern, tenant, status, error code and
// duration, never a token (a tenant token's hash and id neither), a query string or the path a client sent, and nothing on
// arrival. --log-level (or LOG_LEVEL; the flag wins) sets the level: warn silences the
// request lines; a level pino does not have is a usage error.
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import t, { type Test } from 'tap'
import { spawnCli, type CliProcess } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

interface WsClient {
  on(event: 'open' | 'close', listener: () => void): void
  on(event: 'error', listener: (err: Error) => void): void
  close(): void
}
const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WsClient

const token = 'serve-logs-token-0123456789-SECRET'
/** Every tenant token the runs issued, with its hash and id: none may be logged. */
const tenant_secrets: string[] = []
const tenant = 'logged-tenant'

/** Starts `serve` with `args` (and `env`); resolves once it listens, with its API URL. */
async function serve(t: Test, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ server: CliProcess; url: string }> {
  const server = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', '--schema', 'examples/schema.eel', '--token', token, ...args], env)
  const [, url] = await server.waitFor(/url: (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/)
  return { server, url: url as string }
}

interface Expected { method: string; route: string | null; tenant?: string; status: number; code?: string }

/** The requests every run makes, and the line each should leave. */
async function makeRequests(url: string): Promise<Expected[]> {
  const bearer = { authorization: `Bearer ${token}` }
  const send = async (path: string, init: RequestInit = {}) => { await (await fetch(url + path, init)).arrayBuffer() }
  await send('/t/default/ops', { method: 'POST', headers: bearer, body: JSON.stringify({ op: 'create', name: tenant }) })
  await send(`/t/${tenant}/query?token=${token}`, { method: 'POST', body: 'insert users {id: 1, email: "a@x", name: "A"}' })
  await send(`/t/${tenant}/query`, { method: 'POST', headers: bearer, body: 'users | wher id == 1' })
  await send('/t/nobody/collections', { headers: bearer })
  await send(`/health?token=${token}&probe=query-string-value`)
  await send('/health?token=wrong-token-ALSO-SECRET')
  await send(`/no/such/route/${tenant}?token=${token}`)
  // A tenant token: issued, used, refused; neither it, its hash nor its id is logged.
  const issued = await (await fetch(`${url}/t/${tenant}/tokens`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{"scope":"read"}' })).json() as { token: string; id: string }
  tenant_secrets.push(issued.token, issued.id, createHash('sha256').update(issued.token).digest('hex'))
  await send(`/t/${tenant}/schema`, { headers: { authorization: `Bearer ${issued.token}` } })
  await send(`/stats?token=${issued.token}`)
  await send(`/t/${tenant}/tokens/${issued.id}`, { method: 'DELETE', headers: bearer })
  await new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/t/${tenant}/tail?after=0&token=${token}`)
    socket.on('open', () => socket.close())
    socket.on('close', () => resolve())
    socket.on('error', reject)
  })
  return [
    { method: 'POST', route: '/api/v1/t/:tenant/ops', tenant: 'default', status: 200 },
    { method: 'POST', route: '/api/v1/t/:tenant/query', tenant, status: 200 },
    { method: 'POST', route: '/api/v1/t/:tenant/query', tenant, status: 400, code: 'syntax_error' },
    { method: 'GET', route: '/api/v1/t/:tenant/collections', tenant: 'nobody', status: 404, code: 'unknown_tenant' },
    { method: 'GET', route: '/api/v1/health', status: 200 },
    { method: 'GET', route: '/api/v1/health', status: 401, code: 'unauthorized' },
    { method: 'GET', route: null, status: 404, code: 'not_found' },
    { method: 'POST', route: '/api/v1/t/:tenant/tokens', tenant, status: 201 },
    { method: 'GET', route: '/api/v1/t/:tenant/schema', tenant, status: 200 },
    { method: 'GET', route: '/api/v1/stats', status: 403, code: 'forbidden' },
    { method: 'DELETE', route: '/api/v1/t/:tenant/tokens/:id', tenant, status: 200 },
    { method: 'GET', route: '/api/v1/t/:tenant/tail', tenant, status: 101 },
  ]
}

/** Stops the server cleanly (its queued lines are flushed) and returns its stdout lines, each parsed. */
async function stopAndReadLog(t: Test, server: CliProcess): Promise<Array<Record<string, unknown>>> {
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'SIGTERM is a clean exit')
  const lines = server.stdout().split('\n').filter((line) => line !== '')
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>
    } catch {
      t.fail(`a stdout line that is not JSON: ${line}`)
      return {}
    }
  })
}

function checkNoSecrets(t: Test, server: CliProcess): void {
  const out = server.stdout()
  for (const secret of [token, 'wrong-token-ALSO-SECRET', 'query-string-value', '?', '/no/such/route', ...tenant_secrets]) {
    t.notOk(out.includes(secret), `stdout never holds ${JSON.stringify(secret)}`)
  }
}

t.test('serve: stdout is one JSON line per request, with its fields; the banner is on stderr', async (t) => {
  const { server, url } = await serve(t, [])
  t.match(server.stderr(), /^tenantdb \d+\.\d+\.\d+ serving .*\n {2}url: http:\/\/127\.0\.0\.1:\d+\/api\/v1\n {2}console: http:\/\/127\.0\.0\.1:\d+\/console\/\n {2}token: from --token\n/, 'the banner, on stderr')
  const expected = await makeRequests(url)
  const log = await stopAndReadLog(t, server)
  t.notMatch(server.stdout(), /serving|console:|url:/, 'no banner on stdout')
  t.same(log.filter((line) => /incoming request|request completed/.test(String(line.msg))), [], 'no line on arrival, no fastify request line')

  const requests = log.filter((line) => line.msg === 'request')
  t.equal(requests.length, expected.length, `one line per request (${requests.length})`)
  // A worker thread's lines reach stdout through the opening thread (docs/operations.md,
  // "Logs"): lines of requests answered by different threads may come in another order, so
  // each expected line is found by what it says, and used once.
  const unused = [...requests]
  for (const want of expected) {
    const at = unused.findIndex((l) => l.method === want.method && l.route === want.route && l.status === want.status && l.tenant === want.tenant && l.code === want.code)
    const line = at === -1 ? {} : unused.splice(at, 1)[0] ?? {}
    const label = `${want.method} ${String(want.route)} ${want.status}`
    t.match(line, { level: 30, method: want.method, status: want.status }, label)
    t.equal(line.route, want.route, `${label}: route pattern`)
    t.equal(line.tenant, want.tenant, `${label}: tenant`)
    t.equal(line.code, want.code, `${label}: error code`)
    t.ok(typeof line.duration_ms === 'number' && line.duration_ms >= 0, `${label}: duration_ms ${String(line.duration_ms)}`)
    t.same(Object.keys(line).filter((k) => !['level', 'time', 'pid', 'hostname', 'thread', 'reqId', 'msg', 'method', 'route', 'tenant', 'status', 'code', 'duration_ms'].includes(k)), [], `${label}: no other field`)
  }
  checkNoSecrets(t, server)
})

t.test('serve --log-level warn: no request lines; LOG_LEVEL sets it, the flag wins', async (t) => {
  for (const [args, env, logged] of [
    [['--log-level', 'warn'], {}, false],
    [[], { LOG_LEVEL: 'warn' }, false],
    [['--log-level', 'info'], { LOG_LEVEL: 'warn' }, true],
  ] as Array<[string[], NodeJS.ProcessEnv, boolean]>) {
    const what = `${args.join(' ')} ${JSON.stringify(env)}`
    const { server, url } = await serve(t, args, env)
    const expected = await makeRequests(url)
    const log = await stopAndReadLog(t, server)
    t.equal(log.filter((line) => line.msg === 'request').length, logged ? expected.length : 0, `${what}: request lines ${logged ? 'written' : 'silenced'}`)
    if (!logged) t.same(log.filter((line) => typeof line.level === 'number' && line.level < 40), [], `${what}: nothing below warn`)
    checkNoSecrets(t, server)
  }
})

t.test('serve: a log level pino does not have is a usage error (exit 2)', async (t) => {
  for (const [args, env, source] of [
    [['--log-level', 'verbose'], {}, '--log-level'],
    [['--log-level', 'WARN'], {}, '--log-level'],
    [[], { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ] as Array<[string[], NodeJS.ProcessEnv, string]>) {
    const run = spawnCli(t, ['serve', '--dir', tempDir(t), '--port', '0', ...args], env)
    // A server that takes the level and listens fails here at once, rather than never exiting.
    const listened = await Promise.race([run.exited.then(() => false), run.waitFor(/url: /).then(() => true, () => false)])
    if (listened) run.child.kill('SIGKILL')
    t.notOk(listened, 'it never listens')
    t.equal(await run.exited, listened ? 'SIGKILL' : 2, `${args.join(' ')} ${JSON.stringify(env)}: exit 2`)
    t.match(run.stderr(), new RegExp(`${source} must be one of fatal, error, warn, info, debug, trace, silent`))
    t.match(run.stderr(), /usage: tenantdb/)
    t.equal(run.stdout(), '', 'nothing on stdout')
  }
})
