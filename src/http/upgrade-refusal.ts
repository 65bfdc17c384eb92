// WebSocket upgrades the server refuses (docs/api.md "Change tail"). Only the change
// tail's route (registered with `config: { websocket: true }`) takes one; an upgrade
// of any other route is refused before the upgrade, as a plain HTTP answer, like
// every other refusal, instead of being upgraded and then closed. Every refused
// upgrade's answer says `Connection: close`: the connection is not reused, and
// @fastify/websocket's onResponse hook (registered first, server.ts) closes it once
// the answer is written.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendError } from './errors.js'
import { pathOnly } from './log.js'
import type {} from '@fastify/websocket' // its augmentation of FastifyRequest (request.ws)

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes a WebSocket upgrade (the change tail); every other route refuses one. */
    websocket?: boolean
  }
}

/** onRequest, after auth and routing: 400 for an upgrade of a route that takes none. */
export async function upgradeRouteHook(request: FastifyRequest, reply: FastifyReply) {
  if (request.ws !== true || request.routeOptions.config.websocket === true) return
  return sendError(reply, 'bad_request', `${request.method} ${pathOnly(request.url)} does not take a WebSocket upgrade; only the change tail does`)
}

/** onSend: an upgrade answered in plain HTTP was refused, and its connection ends with the answer. */
export async function refusedUpgradeCloses(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (request.ws === true) reply.header('connection', 'close')
  return payload
}
