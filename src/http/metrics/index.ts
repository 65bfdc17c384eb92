// The server's Prometheus metrics (docs/operations.md, "Metrics"), served by
// routes/metrics.ts.
export { ServerMetrics, unmatched_route, type TailObserver, type TailTransport } from './server-metrics.js'
