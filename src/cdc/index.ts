// The change tail (CDC, docs/api.md, "Change tail"): a tenant's
// committed write transactions as events, read from the engine's WAL. Polls
// (`pollTail`, `longPollTail`) for the HTTP route and `tenant.tail()`; a live
// subscription (`subscribe`) for the WebSocket route; the `CommitNotifier` that
// follows the committer (src/txn/) to wake them.
export { decodeEvent, type ChangeOp, type TailChange, type TailEvent } from './event.js'
export { eventText } from './event-text.js'
export { LsnExpiredError, TailRequestError } from './errors.js'
export { pollTail, type TailOptions, type TailPage } from './poll.js'
export { longPollTail, type LongPollOptions } from './long-poll.js'
export { CommitNotifier, type WaitOptions } from './notifier.js'
export { subscribe, type EventHandler, type SubscribeFilter, type SubscribeOptions, type Subscription } from './subscribe.js'
export { resolveAfter } from './read.js'
export * from './limits.js'
