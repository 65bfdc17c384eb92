// The server's Prometheus metrics (docs/operations.md, "Metrics"), served by
// routes/metrics.ts.
export { ServerMetrics, unmatched_route, type OtherThreads, type TailObserver, type TailTransport, type ThreadMetrics } from './server-metrics.js'
