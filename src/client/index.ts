// The client of a tenantdb server (docs/client.md): fetch and WebSocket only, so it runs
// in Node 20+, browsers and edge runtimes.
export { answeredError, TenantdbError, unansweredError, type ClientErrorCode, type UnansweredCode } from './errors.js'
