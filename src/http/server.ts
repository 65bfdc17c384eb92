// The fastify server: a thin layer over a Database (docs/architecture.md, "Layers").
// The canonical path, the hooks, the one error mapping, and the routes. It holds no
// state of its own beyond what it is given, its metrics and whether it is closing.
//
// What a request meets, in order (docs/architecture.md "The HTTP layer"):
//   rewriteUrl      canonical-path.ts: one spelling of the path, or a refusal mark
//   onRequest       request-step.ts: one synchronous step, its parts in order:
//                   request-guard.ts: 400 refused path, 403 host, 403 origin
//                   shutdown.ts: 503 shutting_down
//                   cors.ts: CORS headers; an allowed preflight is answered (204)
//                   auth.ts: 401/429 unless the matched route is public; then
//                   route-access.ts: what the credential opens (403 forbidden,
//                   404 unknown_tenant for a tenant a token does not open)
//                   route-methods.ts: 405 (with Allow) or 404 when no route matched
//                   upgrade-refusal.ts: 400 for a WebSocket upgrade of a route that takes none
//                   (the tail route alone: @fastify/websocket then marks an upgrade, request.ws)
//   body            body.ts: UTF-8, 400 if ill-formed; JSON as its value, else the text
//   validation      the route's schema (validation.ts): params, query string, headers,
//                   body; 400 bad_request naming what is wrong
//   route           its own hooks (the tail's preHandler) and handler
//   onSend          synchronous: Connection: close on every answer while closing and on
//                   a refused upgrade's
//   onResponse      synchronous: metrics/ counts it by route pattern, method and status;
//                   a refused upgrade's connection is closed; log.ts: its one log line
//                   (the log controller). An upgraded tail: when it closes
// A plain request runs no asynchronous hook: none waits on anything.
//
// A worker thread's server (options.opener, threads/; docs/architecture.md "Every
// core") forwards to the opening thread a request whose tokens are all wrong (from the
// auth part), one that would commit (the query route hands over the checked statement
// alone; the error handler the whole request on CommitElsewhereError), and the routes
// declared config.opener (a preHandler).
//
// The same schemas generate the OpenAPI document (openapi.ts, @fastify/swagger).
import swagger from '@fastify/swagger'
import websocket from '@fastify/websocket'
import { createServer, maxHeaderSize } from 'node:http'
import { threadId } from 'node:worker_threads'
import type { AddressInfo } from 'node:net'
import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import { AccessTokens, NotPrimaryError, type Database } from '../database/index.js'
import { access_token_last_used_flush_ms, body_bytes_max, metrics_tenants_default, request_timeout_ms } from '../limits.js'
import { authenticated, Credentials } from './auth.js'
import { AuthThrottle } from './auth-throttle.js'
import type { ReplicationReporter } from '../replication/index.js'
import { jsonOrTextBodies } from './body.js'
import { rewriteToCanonical } from './canonical-path.js'
import { clientErrorHandler } from './client-errors.js'
import { corsHeaders } from './cors.js'
import { mapError } from './error-mapping.js'
import { sendError, sendErrorBody } from './errors.js'
import { log_serializers, logRequest, OneLinePerRequest, pathOnly, routePattern } from './log.js'
import { ServerMetrics, unmatched_route } from './metrics/index.js'
import { swagger_options, withAccess } from './openapi.js'
import { OriginPolicy } from './origin-policy.js'
import { guarded } from './request-guard.js'
import { requestStep } from './request-step.js'
import { routeMissing } from './route-methods.js'
import { routeOptionsOf } from './route-options.js'
import { addSharedSchemas } from './schemas.js'
import { Shutdown } from './shutdown.js'
import { TokenWatch } from './token-watch.js'
import { endRefusedUpgrade, refusedUpgradeCloses, upgradeRefused } from './upgrade-refusal.js'
import { schemaErrorFormatter, validatorCompiler } from './validation.js'
import { accessRoutes } from './routes/access.js'
import { backupRoutes } from './routes/backup.js'
import { consoleRoutes } from './routes/console.js'
import { healthRoutes } from './routes/health.js'
import { metricsRoutes } from './routes/metrics.js'
import { openapiRoutes } from './routes/openapi.js'
import { opsRoutes } from './routes/ops.js'
import { query_path, queryRoutes } from './routes/query.js'
import { schemaSourceRoutes, type SchemaFile } from './routes/schema-source.js'
import { tail_path, tail_schema, tailPollRoute } from './routes/tail-poll.js'
import { tailWebSocket, tailWebSocketPluginOptions, type TailWebSocketOptions } from './routes/tail-ws.js'
import { tenantRoutes } from './routes/tenants.js'
import { trendRoutes } from './routes/trends.js'
import { usageRoutes } from './routes/usage.js'
import { tokenRoutes } from './routes/tokens.js'
import { forwardHook, forwardRequest, requestIdsOfThread, wasForwarded, type OpenerLink } from './threads/index.js'
import { CommitElsewhereError } from '../database/index.js'

export interface ServerOptions {
  db: Database
  token: string
  /** The schema source served by /schema.eel; defaults to the database's loaded files. */
  schema?: readonly SchemaFile[]
  /** Origins allowed cross-origin access besides the server's own (--console-origin). */
  consoleOrigins?: readonly string[]
  /** Host names the server answers besides its listen address and loopback names (--allowed-host). */
  allowedHosts?: readonly string[]
  /** Tuning of the tail WebSocket (slow-consumer thresholds, ping interval); tests shorten them. */
  tailWebSocket?: TailWebSocketOptions
  /** A pino logger configuration, or false for none. */
  logger?: FastifyServerOptions['logger']
  /** Time a request may take (default request_timeout_ms); tests shorten it. */
  requestTimeoutMs?: number
  /** Directory of the built operator console served at /console/ (default dist/console). */
  consoleDir?: string
  /**
   * How many of the busiest tenants the metrics and the health detail name (the rest
   * are `other`; `--metrics-tenants`, default metrics_tenants_default). A worker thread's
   * server shows none: the opening thread serves them.
   */
  metricsTenants?: number
  /** A replicated node's figures, for /health/detail and the metrics (docs/replication.md). */
  replication?: ReplicationReporter
  /**
   * A worker thread's link to the thread that opened the database (threads/,
   * docs/architecture.md "Every core"): `db` is attached, and what it cannot answer
   * alone is forwarded: a request that would commit, one whose token is wrong (the
   * throttle counts there), and the routes declared `config.opener`.
   */
  opener?: OpenerLink
}

export interface RegisteredRoute {
  method: string
  url: string
}

const registered_routes = new WeakMap<FastifyInstance, RegisteredRoute[]>()
const server_metrics = new WeakMap<FastifyInstance, ServerMetrics>()

/** The metrics of a server buildServer made (the threads of a server on every core add theirs up). */
export function serverMetricsOf(app: FastifyInstance): ServerMetrics {
  const metrics = server_metrics.get(app)
  if (metrics === undefined) throw new Error('not a server of buildServer')
  return metrics
}

/** Every route the server registered, with each method separately. */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  return registered_routes.get(app) ?? []
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const { db } = options
  const requestTimeoutMs = options.requestTimeoutMs ?? request_timeout_ms
  const logging = options.logger !== undefined && options.logger !== false
  const app = Fastify({
    logger: logging ? { ...(typeof options.logger === 'object' ? options.logger : {}), serializers: log_serializers } : false,
    bodyLimit: body_bytes_max,
    requestTimeout: requestTimeoutMs,
    // Node checks request timeouts only every connectionsCheckingInterval (30 s by
    // default); checking at a quarter of the timeout makes the limit hold.
    serverFactory: (handler) => createServer({
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(requestTimeoutMs / 4))),
    }, handler),
    // One spelling of every path before any hook and the router (plain requests and
    // WebSocket upgrades alike); a refused one is answered by the request guard.
    rewriteUrl: (request) => rewriteToCanonical(request),
    // find-my-way answers a parameter over maxParamLength (default 100) with its own 414
    // before any hook, so without the token check. No route has a pattern parameter;
    // the request line can never exceed Node's header limit, so this never fires.
    routerOptions: { maxParamLength: maxHeaderSize },
    // What the router still refuses itself (nothing, with the canonical path and the
    // limit above), in the documented error body.
    frameworkErrors: (error, _request, reply) => sendError(reply, 'bad_request', error.message),
    // Timeouts and requests Node's parser refuses, in the documented JSON body.
    clientErrorHandler,
    // Our own 503 `shutting_down` below, in the documented body.
    return503OnClosing: false,
    // One line per request, when answered (log.ts); none on arrival.
    logController: logging ? new OneLinePerRequest() : new LogController({ disableRequestLogging: true }),
    // A request its route's schema refuses: 400 bad_request, in a sentence.
    schemaErrorFormatter,
    // A worker thread's ids name it (threads/request-ids.ts).
    ...(options.opener === undefined ? {} : { genReqId: requestIdsOfThread(threadId) }),
  })

  // Every route, as registered: the auth test (R8) enumerates them, so a new route
  // without auth coverage fails the suite. A route that does not declare who may call
  // it (route-access.ts) is not registered at all: the server does not start.
  const routes: RegisteredRoute[] = []
  // Before @fastify/swagger's own onRoute hook: the document says what the access opens.
  app.addHook('onRoute', (route) => {
    if (route.config?.access === undefined) throw new Error(`route ${String(route.method)} ${route.url} declares no access (config.access, src/http/route-access.ts)`)
    route.schema = withAccess((route.schema ?? {}) as Record<string, unknown>, route.config.access)
    for (const method of [route.method].flat()) routes.push({ method: String(method), url: route.url })
  })

  // Tenant tokens: found by their hash at each request (among those verified since the
  // catalog last changed, else in the catalog); open tails re-checked
  // (token-watch.ts); last uses kept in memory and written once a minute and at close.
  const tokens = AccessTokens.of(db)
  const watch = new TokenWatch(tokens)
  // Only the error's code is logged: a conflict's message may name a catalog key, which holds a token's hash.
  // A replication follower writes no catalog: its uses stay in memory (one entry per
  // token) until it is the primary, without a warning a minute (docs/replication.md).
  const opener = options.opener
  const flushUses = opener !== undefined ? async () => opener.uses(tokens.takeUses()) : () => tokens.flushLastUsed().catch((err: unknown) => {
    if (err instanceof NotPrimaryError) return
    app.log.warn({ code: (err as { code?: unknown }).code ?? null }, 'writing the tokens\' last uses failed; retrying later')
  })
  // A worker thread hands a token's first use of each minute to the opening thread at
  // once: the listing (answered there) shows it, to the minute, whichever thread saw it.
  const noteUse = opener === undefined
    ? (hash: string) => { tokens.used(hash) }
    : (hash: string) => { if (tokens.used(hash)) opener.uses([[hash, Date.now()]]) }
  const flushTimer = setInterval(() => { void flushUses() }, access_token_last_used_flush_ms).unref()
  app.addHook('onClose', async () => {
    clearInterval(flushTimer)
    watch.close()
    await flushUses()
  })
  registered_routes.set(app, routes)

  // Counted when answered, whoever answered (a hook's refusal too); a WebSocket tail
  // when it closes (tail-ws.ts). The log line is the log controller's. A refused
  // upgrade's connection is closed once its answer is written (upgrade-refusal.ts).
  const metricsTenants = options.metricsTenants ?? metrics_tenants_default
  const metrics = new ServerMetrics(db, query_path, options.replication ?? null, options.opener === undefined ? metricsTenants : null)
  server_metrics.set(app, metrics)
  app.addHook('onClose', (_instance, done) => { metrics.close(); done() })
  app.addHook('onResponse', (request, reply, done) => {
    // A worker thread's forwarded request is counted by the opening thread, which answered it.
    if (opener !== undefined && wasForwarded(request)) return done()
    metrics.requestEnded(routePattern(request) ?? unmatched_route, request.method, reply.statusCode, reply.elapsedTime / 1000)
    endRefusedUpgrade(request)
    done()
  })
  const upgradeEnded = (request: FastifyRequest, status: number, duration_ms: number) => {
    logRequest(request, status, duration_ms)
    metrics.requestEnded(routePattern(request) ?? unmatched_route, request.method, status, duration_ms / 1000)
  }

  jsonOrTextBodies(app, opener !== undefined)
  app.setValidatorCompiler(validatorCompiler)
  // The response schemas describe (the document is generated from them) but do not
  // serialize: fast-json-stringify would drop any field a schema does not list and
  // coerce values to the declared types, so a gap in a description would change an
  // answer instead of showing up in the OpenAPI fuzzer. A closed schema does not make
  // it safe (it writes a `const` as declared whatever the value, a number given for a
  // string as its text), and what it saves is off the hot path: the query route's
  // answer is text already (answer-body.ts), and a small answer saves well under a
  // microsecond (docs/performance.md, "The request path (P9)").
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  addSharedSchemas(app)
  // Before every route: it collects them as they are registered.
  await app.register(swagger, swagger_options)

  // The address the server listens on, kept after close() stops the listener: a
  // request still arriving on a connection it holds while closing is judged by it (and
  // answered 503 shutting_down below), not refused as naming an unknown host.
  const server = app.server
  let listening: AddressInfo | null = null
  server.on('listening', () => {
    const address = server.address()
    listening = address !== null && typeof address === 'object' ? address : null
  })
  const policy = new OriginPolicy(() => listening, options.consoleOrigins ?? [], options.allowedHosts ?? [])

  const shutdown = new Shutdown()
  app.addHook('preClose', (done) => { shutdown.begin(); done() })
  // Every check before the body, in one synchronous hook (request-step.ts).
  app.addHook('onRequest', requestStep({
    guard: guarded(policy),
    shutdown: shutdown.refused,
    cors: corsHeaders(policy),
    authenticate: authenticated(new Credentials(options.token, tokens), noteUse, new AuthThrottle(),
      opener === undefined ? undefined : (request, reply) => { forwardRequest(opener, request, reply).catch((err: unknown) => reply.send(err)) }),
    routeMissing: routeMissing(app),
    upgradeRefused,
  }))
  // Which answers end their connection: every one once closing (in-flight ones
  // included), and a refused upgrade's.
  app.addHook('onSend', (request, reply, payload, done) => {
    shutdown.closesConnection(reply)
    refusedUpgradeCloses(request, reply)
    done(null, payload)
  })
  if (opener !== undefined) app.addHook('preHandler', forwardHook(opener))

  // Reached only if a route calls callNotFound (none does): route-methods.ts answers the rest.
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 'not_found', `no route ${request.method} ${pathOnly(request.url)}`),
  )
  app.setErrorHandler((error, request, reply) => {
    // A worker thread tried to commit: nothing was written; the opener runs it again.
    if (opener !== undefined && error instanceof CommitElsewhereError) return forwardRequest(opener, request, reply)
    const { status, body, log } = mapError(error, { failuresAre400: routeOptionsOf(request).config.failuresAre400 === true })
    if (log) request.log.error({ err: error }, 'request failed')
    return sendErrorBody(reply, status, body)
  })

  await app.register(healthRoutes(db, options.replication ?? null, metricsTenants))
  await app.register(tenantRoutes(db))
  await app.register(usageRoutes(db))
  await app.register(queryRoutes(db, opener))
  await app.register(opsRoutes(db, tokens))
  await app.register(tokenRoutes(tokens))
  await app.register(accessRoutes())
  await app.register(metricsRoutes(metrics))
  await app.register(trendRoutes(metrics.trends))
  await app.register(backupRoutes(db, shutdown.signal))
  await app.register(openapiRoutes(() => listening))
  await app.register(schemaSourceRoutes(options.schema ?? db.schema.files))
  await app.register(consoleRoutes(options.consoleDir))
  // One path, two forms: the HTTP poll (handler) and the WebSocket upgrade (wsHandler
  // and its preHandler, which does nothing for a plain request). @fastify/websocket is
  // registered in a context of this route alone, so its hooks (marking request.ws,
  // closing a refused upgrade) and its handler wrapper run for this route only; the
  // 'upgrade' listener it adds to the server routes every upgrade through fastify, and
  // the request step refuses those of other routes. maxPayload ws_message_bytes_max;
  // closes tails with 1001 on shutdown.
  await app.register(async (tail) => {
    await tail.register(websocket, tailWebSocketPluginOptions)
    // The server shows its tails' WebSocket server, as the plugin's decoration would.
    app.decorate('websocketServer', tail.websocketServer)
    tail.route({
      method: 'GET', url: tail_path, schema: tail_schema, config: { websocket: true, access: { tenant: 'read' } },
      handler: tailPollRoute(db, shutdown.signal, metrics.tail, watch),
      ...tailWebSocket(db, options.tailWebSocket ?? {}, { tail: metrics.tail, ended: upgradeEnded }, watch),
    })
  })
  return app
}
