// The first part of the request step (request-step.ts): refusals that come before
// routing decides anything and before authentication, for every method and for
// WebSocket upgrades (docs/api.md "Paths" and "Origins and hosts"). In order:
//   400 bad_request          the request target was refused by canonical-path.ts
//   403 host_not_allowed     Host names something else (DNS rebinding)
//   403 origin_not_allowed   Origin is present and not allowed (cross-site requests)
//   403 origin_not_allowed   Sec-Fetch-Site says cross-site or same-site and there is
//                            no Origin (a no-cors GET such as <img src>)
// A request refused here never reaches the auth step, so a hostile page cannot spend
// a local client's failed-authentication budget.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { refusedTarget } from './canonical-path.js'
import { sendError } from './errors.js'
import type { OriginPolicy } from './origin-policy.js'

/** True when it answered the request (a refusal above), false when the request goes on. */
export function guarded(policy: OriginPolicy) {
  return function guard(request: FastifyRequest, reply: FastifyReply): boolean {
    const refused = refusedTarget(request.raw)
    if (refused !== undefined) {
      sendError(reply, 'bad_request', refused)
      return true
    }
    const host = request.raw.headers.host
    if (!policy.hostAllowed(host)) {
      sendError(reply, 'host_not_allowed', `this server does not answer to the host ${JSON.stringify(host ?? '')}; start it with --allowed-host to add a name`)
      return true
    }
    const origin = request.raw.headers.origin
    if (origin !== undefined) {
      if (policy.originAllowed(origin)) return false
      sendError(reply, 'origin_not_allowed', `requests from the origin ${JSON.stringify(origin)} are not allowed; start the server with --console-origin to allow one`)
      return true
    }
    const site = request.raw.headers['sec-fetch-site']
    if (site !== 'cross-site' && site !== 'same-site') return false
    sendError(reply, 'origin_not_allowed', `a ${site} request without an allowed Origin is not allowed`)
    return true
  }
}
