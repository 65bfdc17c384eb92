// WebSocket upgrades the server refuses (docs/api.md "Change tail"). Only the change
// tail's route (registered with `config: { websocket: true }`) takes one; an upgrade
// of any other route is refused before the upgrade, as a plain HTTP answer, like
// every other refusal, instead of being upgraded and then closed. Every refused
// upgrade's answer says `Connection: close` and its connection is closed once the
// answer is written: after an upgrade request Node no longer reads the connection as
// HTTP, so nothing else would end it.
//
// An upgrade is told by `request.raw.upgrade`: Node sets it on exactly the requests it
// hands to the server's 'upgrade' listener (@fastify/websocket's, which routes them
// through fastify). The plugin's own hooks and its request.ws mark are the tail
// route's alone (server.ts), so a plain request meets none of them.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { sendError } from './errors.js'
import { pathOnly } from './log.js'
import { routeOptionsOf } from './route-options.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes a WebSocket upgrade (the change tail); every other route refuses one. */
    websocket?: boolean
  }
}

/** Whether the request is a WebSocket (or other) upgrade rather than a plain request. */
export function isUpgrade(request: FastifyRequest): boolean {
  // Node sets it on every request (its types leave it out).
  return (request.raw as IncomingMessage & { upgrade?: boolean }).upgrade === true
}

/**
 * The last part of the request step (request-step.ts), after auth and routing: 400 for
 * an upgrade of a route that takes none; true when it answered.
 */
export function upgradeRefused(request: FastifyRequest, reply: FastifyReply): boolean {
  if (!isUpgrade(request) || routeOptionsOf(request).config.websocket === true) return false
  sendError(reply, 'bad_request', `${request.method} ${pathOnly(request.url)} does not take a WebSocket upgrade; only the change tail does`)
  return true
}

/** Part of onSend: an upgrade answered in plain HTTP was refused, and its connection ends with the answer. */
export function refusedUpgradeCloses(request: FastifyRequest, reply: FastifyReply): void {
  if (isUpgrade(request)) reply.header('connection', 'close')
}

/** Part of onResponse: the refused upgrade's answer is written; its connection is closed. */
export function endRefusedUpgrade(request: FastifyRequest): void {
  if (isUpgrade(request)) request.raw.socket.destroy()
}
