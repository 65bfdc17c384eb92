// A replicated node's figures (docs/operations.md, "Metrics"; docs/replication.md,
// "Watching it"), read from its status when Prometheus scrapes, like /health/detail's
// `replication`. Registered only on a node of a cluster.
import { Gauge, type Registry } from 'prom-client'
import type { ReplicationReporter, ReplicationRole } from '../../replication/index.js'

const roles: readonly ReplicationRole[] = ['primary', 'fenced', 'candidate', 'follower']

export function registerReplicationMetrics(registry: Registry, replication: ReplicationReporter): void {
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({ name, help, registers: [registry], collect() { this.set(value()) } })
  new Gauge({
    name: 'tenantdb_replication_role', help: 'The node\'s role in its cluster: 1 for the role it has, 0 for the others.',
    labelNames: ['role'], registers: [registry],
    collect() {
      const { role } = replication.status()
      for (const r of roles) this.set({ role: r }, r === role ? 1 : 0)
    },
  })
  gauge('tenantdb_replication_term', 'The newest term the node knows of (its own, when primary).', () => replication.status().term)
  gauge('tenantdb_replication_applied_lsn', 'LSN of the newest frame durable on this node.', () => replication.status().applied_lsn)
  gauge('tenantdb_replication_lag_frames', 'A follower: frames in the stream not applied yet. A primary: frames durable here the stream has not acknowledged.', () => replication.status().lag_frames)
  gauge('tenantdb_replication_lag_seconds', 'The age of the oldest of those frames.', () => replication.status().lag_ms / 1000)
  gauge('tenantdb_replication_apply_lag_p99_seconds', 'A follower: the 99th percentile, over its newest applied frames, of the time from the primary publishing a frame until it was durable here.', () => (replication.status().apply_lag_ms?.p99 ?? 0) / 1000)
  gauge('tenantdb_replication_nats_connected', 'Whether the node\'s connection to NATS is up (1) or not (0).', () => (replication.status().nats_connected ? 1 : 0))
}
