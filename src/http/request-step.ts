// The one onRequest step (docs/architecture.md, "The HTTP layer"): every check a
// request meets after routing and before its body is read, in this order, each in a
// file of its own, as one synchronous hook. A part that answers the request (a
// refusal, or a CORS preflight's 204) stops the step; a request every part lets pass
// goes on to its body. Nothing here waits, so a request costs no promise and no turn
// of the event loop before its body.
//
//   guard           request-guard.ts: 400 refused path, 403 host, 403 origin
//   shutdown        shutdown.ts: 503 shutting_down once the server is closing
//   cors            cors.ts: CORS headers; an allowed preflight is answered (204)
//   authenticate    auth.ts: 401/429 unless the matched route is public; then
//                   route-access.ts: what the credential opens (403 forbidden, 404
//                   unknown_tenant for a tenant a token does not open)
//   routeMissing    route-methods.ts: 405 (with Allow) or 404 when no route matched
//   upgradeRefused  upgrade-refusal.ts: 400 for a WebSocket upgrade of a route that takes none
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'

/** One part of the step: true when it answered the request. */
export type RequestCheck = (request: FastifyRequest, reply: FastifyReply) => boolean

export interface RequestChecks {
  guard: RequestCheck
  shutdown: RequestCheck
  cors: RequestCheck
  authenticate: RequestCheck
  routeMissing: RequestCheck
  upgradeRefused: RequestCheck
}

/** The onRequest hook running `checks` in the order above. */
export function requestStep(checks: RequestChecks) {
  const { guard, shutdown, cors, authenticate, routeMissing, upgradeRefused } = checks
  return function step(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (guard(request, reply) || shutdown(request, reply) || cors(request, reply) ||
      authenticate(request, reply) || routeMissing(request, reply) || upgradeRefused(request, reply)) return
    done()
  }
}
