// GET /api/v1/t/:tenant/tail as a WebSocket (docs/api.md, "Change tail"):
// the backlog after `after`, then live events, one JSON text message per event, in LSN
// order, each once. Pings every 15 s. The route itself (with the HTTP poll handler) is
// registered by server.ts, in a context of its own with the plugin:
//
//   await tail.register(websocket, tailWebSocketPluginOptions)
//   tail.route({ method: 'GET', url: '/api/v1/t/:tenant/tail', schema: tail_schema, config: { websocket: true }, handler: poll, ...tailWebSocket(db, options, observer) })
//
// Everything that can refuse a tail is decided BEFORE the upgrade, as a plain HTTP
// response: the request guard's 400/403 (path, host, origin), the auth step's 401 (no
// or wrong token, or a token offered in a header: WebSockets take only
// `?token=`), 400 a malformed parameter (the route's schema, tail-poll.ts), 404 unknown
// tenant, 423 a suspended one, 400 an unknown collection or an `after` beyond the head,
// 410 expired `after`. A refused
// upgrade is answered with `Connection: close` and its connection closed once the
// answer is written (upgrade-refusal.ts, from the server's onSend and onResponse
// hooks, whichever step refused it); `config: { websocket: true }` is what lets this
// route, alone, upgrade. To make the 404/400/410 exact, the
// subscription itself is opened in the route's preHandler (it throws at once for a
// bad `after`) and handed to the socket once upgraded; it is closed when the
// connection closes, upgraded or not.
//
// Close codes after the upgrade:
//   1000  never sent by the server on its own (the client ends a tail)
//   1001  the server is shutting down (tailWebSocketPluginOptions.preClose)
//   1009  a client message over ws_message_bytes_max (ws's maxPayload)
//   1011  the subscription failed (engine error); reason "internal error"
//   1013  the consumer is too slow: its unsent bytes passed tail_ws_buffered_bytes_max,
//         or one event could not be handed to it within tail_ws_stall_ms_max;
//         reason "consumer too slow; resume with after=<last lsn sent>"
//   4401  the tail's tenant token was revoked, expired, or its tenant deleted (HTTP
//         401's analogue; token-watch.ts notices within access_token_watch_ms);
//         reason "token revoked or expired"
//   4410  the consumer fell so far behind that retention deleted its next events
//         (HTTP 410's analogue); reason "lsn_expired; oldest_lsn=<n>". Resume without
//         `after` (or after = oldest_lsn - 1) accepting the gap.
// The client should keep the `lsn` of the last event it processed and reconnect with
// `?after=<lsn>`: `after` is exclusive, so nothing is duplicated and nothing is missed.
import { performance } from 'node:perf_hooks'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { LsnExpiredError, eventText, type Subscription, type TailEvent } from '../../cdc/index.js'
import type { Database } from '../../database/index.js'
import { ws_message_bytes_max } from '../../limits.js'
import { mapError } from '../error-mapping.js'
import { sendErrorBody } from '../errors.js'
import { pathOnly } from '../log.js'
import type { TailObserver } from '../metrics/index.js'
import type { TokenWatch } from '../token-watch.js'
import type { TailQuery } from './tail-poll.js'
import type {} from '@fastify/websocket' // its augmentation of FastifyRequest (request.ws)

export { tail_ws_buffered_bytes_low, tail_ws_buffered_bytes_max, tail_ws_ping_ms, tail_ws_stall_ms_max } from '../../limits.js'
import { tail_ws_buffered_bytes_low, tail_ws_buffered_bytes_max, tail_ws_ping_ms, tail_ws_stall_ms_max } from '../../limits.js'

export const close_codes = {
  going_away: 1001,
  message_too_big: 1009,
  internal: 1011,
  try_again_later: 1013,
  lsn_expired: 4410,
  token_revoked: 4401,
} as const

/** The part of a `ws` WebSocket the tail uses (the `ws` package ships no types here). */
export interface WsSocket {
  readonly readyState: number
  readonly bufferedAmount: number
  send(data: string, callback: (err?: Error) => void): void
  ping(): void
  close(code?: number, reason?: string): void
  terminate(): void
  on(event: 'close', listener: () => void): unknown
  on(event: 'pong', listener: () => void): unknown
  on(event: 'message', listener: (data: unknown) => void): unknown
  on(event: 'error', listener: (err: Error) => void): unknown
}

/** The socket as the subscription sees it: sends carry the event's LSN. */
export type TailSocket = Omit<WsSocket, 'send'> & {
  /** Sends one event's JSON; `lsn` is kept for the resume hint of a 1013 close. */
  send(data: string, lsn: number, callback: (err?: Error) => void): void
}

const ws_open = 1

export interface TailWebSocketOptions {
  buffered_bytes_max?: number
  buffered_bytes_low?: number
  stall_ms_max?: number
  ping_ms?: number
}

/** What the server hears of a tail (the metrics, and the request's log line). */
export interface TailWebSocketObserver {
  tail: TailObserver
  /** The upgraded request ended (the socket closed): status 101, after `duration_ms` since it arrived. */
  ended(request: FastifyRequest, status: number, duration_ms: number): void
}

/** What the preHandler opened for an upgrade, waiting for its socket. */
interface Pending {
  subscription: Subscription
  /** performance.now() when the request arrived. */
  arrived: number
  /** Resolves with the socket after the upgrade; the event handler waits on it. */
  attach(socket: TailSocket): void
}

const pending = new WeakMap<FastifyRequest, Pending>()

class SlowConsumer extends Error {}

/**
 * The WebSocket half of the tail route: spread into the route options
 * (`{ wsHandler, preHandler }`). The hook does nothing for a plain HTTP
 * request (the poll), so the poll handler may share the route.
 */
export function tailWebSocket(db: Database, options: TailWebSocketOptions, observer: TailWebSocketObserver, watch: TokenWatch) {
  const bufferedMax = options.buffered_bytes_max ?? tail_ws_buffered_bytes_max
  const bufferedLow = options.buffered_bytes_low ?? tail_ws_buffered_bytes_low
  const stallMs = options.stall_ms_max ?? tail_ws_stall_ms_max
  const pingMs = options.ping_ms ?? tail_ws_ping_ms

  const preHandler: preHandlerAsyncHookHandler = async (request, reply) => {
    if (request.ws !== true) return
    let socket: TailSocket | undefined
    let attached: (socket: TailSocket) => void = () => {}
    let gone: (err: Error) => void = () => {}
    const ready = new Promise<TailSocket>((resolve, reject) => { attached = resolve; gone = reject })
    ready.catch(() => {})
    let subscription: Subscription
    try {
      // The same parameters (validated by the route's schema before this hook), and the
      // same refusals (by the tenant, below HTTP), as the poll form of the route.
      const { tenant } = request.params as { tenant: string }
      const { after, collection } = request.query as TailQuery
      // Synchronous once the socket is there, unless the socket holds much unsent data:
      // an event then costs no promise (the subscription awaits only what it is given).
      subscription = db.tenant(tenant).subscribe({ after, collection }, (event: TailEvent) => {
        if (socket !== undefined) return deliver(socket, event)
        return ready.then((attached) => {
          socket = attached
          return deliver(attached, event)
        })
      })
    } catch (err) {
      const mapped = mapError(err, { failuresAre400: false })
      if (mapped.log) request.log.error({ err }, 'change tail refused')
      return sendErrorBody(reply, mapped.status, mapped.body)
    }
    // However the connection ends (refused by ws, closed by either side), the
    // subscription ends with it.
    request.raw.socket.once('close', () => {
      gone(new SlowConsumer('connection closed before the upgrade completed'))
      void subscription.close()
    })
    pending.set(request, { subscription, arrived: performance.now() - reply.elapsedTime, attach: (s) => attached(s) })
  }

  /**
   * Writes one event; when the socket holds much unsent data, returns a promise that
   * settles once this event is written (or fails when none is within stall_ms_max).
   */
  function deliver(socket: TailSocket, event: TailEvent): Promise<void> | undefined {
    if (socket.readyState !== ws_open) throw new SlowConsumer('socket closed')
    // The write's outcome, kept until someone waits for it (most events nobody does).
    let outcome: { err: Error | null } | undefined
    let waiting: ((err: Error | null) => void) | undefined
    // Made once however many tails send this event (event-text.ts).
    socket.send(eventText(event), event.lsn, (err) => {
      const failure = err ?? null
      if (waiting !== undefined) waiting(failure)
      else outcome = { err: failure }
    })
    if (socket.bufferedAmount > bufferedMax) throw new SlowConsumer(`buffered ${socket.bufferedAmount} bytes`)
    if (socket.bufferedAmount <= bufferedLow) return undefined
    const sent = new Promise<void>((resolve, reject) => {
      const settle = (err: Error | null) => (err === null ? resolve() : reject(err))
      if (outcome !== undefined) settle(outcome.err)
      else waiting = settle
    })
    sent.catch(() => {})
    return drained(sent)
  }

  async function drained(sent: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const stalled = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new SlowConsumer(`no progress in ${stallMs} ms`)), stallMs)
    })
    try {
      await Promise.race([sent, stalled])
    } finally {
      clearTimeout(timer)
    }
  }

  const wsHandler = (socket: WsSocket, request: FastifyRequest): void => {
    const opened = pending.get(request)
    pending.delete(request)
    if (opened === undefined) {
      // Only when the route is registered without the preHandler above.
      socket.close(close_codes.internal, 'tail route misconfigured')
      return
    }
    const { subscription } = opened
    observer.tail.opened('websocket')
    let lastSent = -1
    let corked = false
    /** Events handed to the socket since the last uncork, counted for the metrics then. */
    let unreported = 0
    // ws keeps the TCP socket as `_socket`; only cork/uncork are used.
    const raw = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket
    let alive = true
    const ping = setInterval(() => {
      if (!alive) return socket.terminate()
      alive = false
      if (socket.readyState === ws_open) socket.ping()
    }, pingMs)
    ping.unref()
    socket.on('pong', () => { alive = true })
    socket.on('message', () => {}) // nothing to say to a tail; oversize messages close with 1009 (maxPayload)
    socket.on('error', () => {})
    // A tenant token revoked or expired (or whose tenant was deleted) ends the tail.
    const { tenant } = request.params as { tenant: string }
    const unwatch = watch.watchRequest(request, tenant, () => {
      if (socket.readyState === ws_open) socket.close(close_codes.token_revoked, 'token revoked or expired')
    })
    socket.on('close', () => {
      unwatch()
      clearInterval(ping)
      void subscription.close()
      observer.tail.closed('websocket')
      observer.ended(request, 101, performance.now() - opened.arrived)
    })
    const flush = () => {
      corked = false
      raw?.uncork()
      observer.tail.sent('websocket', unreported)
      unreported = 0
    }
    opened.attach({
      get readyState() { return socket.readyState },
      get bufferedAmount() { return socket.bufferedAmount },
      send(data, lsn, callback) {
        // Events sent in one turn of the event loop (every commit announced since the
        // last wake-up, notifier.ts) leave in one write instead of one system call each.
        if (!corked) {
          corked = true
          raw?.cork()
          process.nextTick(flush)
        }
        socket.send(data, callback)
        lastSent = lsn
        unreported += 1
      },
      ping: () => socket.ping(),
      close: (code, reason) => socket.close(code, reason),
      terminate: () => socket.terminate(),
      on: socket.on.bind(socket) as WsSocket['on'],
    })
    subscription.done.then(
      () => {},
      (err: unknown) => {
        clearInterval(ping)
        if (socket.readyState !== ws_open) return
        if (err instanceof SlowConsumer) {
          const resume = lastSent >= 0 ? lastSent : subscription.last_lsn
          socket.close(close_codes.try_again_later, `consumer too slow; resume with after=${resume}`)
        } else if (err instanceof LsnExpiredError) {
          socket.close(close_codes.lsn_expired, `lsn_expired; oldest_lsn=${err.oldest_lsn}`)
        } else {
          request.log.error({ err, url: pathOnly(request.url) }, 'change tail failed')
          socket.close(close_codes.internal, 'internal error')
        }
      },
    )
  }

  return { preHandler, wsHandler }
}

/**
 * Options for `app.register(websocket, …)` in server.ts: oversize client messages close
 * with 1009, and shutdown closes every tail with 1001 (docs/operations.md, "Stopping").
 */
export const tailWebSocketPluginOptions = {
  options: { maxPayload: ws_message_bytes_max },
  preClose(this: { websocketServer: { clients: Set<WsSocket>; close(): void } }, done: () => void) {
    for (const client of this.websocketServer.clients) client.close(close_codes.going_away, 'server shutting down')
    this.websocketServer.close()
    done()
  },
}
