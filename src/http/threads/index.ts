// A server on every core (docs/architecture.md, "Every core"): worker threads that
// serve HTTP over the database attached to each, and the opening thread that commits.
export { forwardHook, forwardRequest, wasForwarded } from './forward.js'
export { forwardQuery } from './forward-query.js'
export { OpenerGoneError, OpenerLink } from './opener-link.js'
export { WorkerPool, type WorkerPoolOptions } from './worker-pool.js'
export type { ForwardedAnswer, ForwardedQuery, ForwardedRequest, QueryOutcome, ToOpener, ToWorker } from './messages.js'
export { requestIdsOfThread } from './request-ids.js'
export { reportTrends } from './worker-figures.js'
export { wouldCommit } from './commits-here.js'
