// Replicas and failover through NATS JetStream (docs/replication.md): the layer above
// the embedding API that makes a database one node of a cluster.
export { ReplicationNode, ReplicationSetupError, type NodeLog, type ReplicationOptions } from './node.js'
export { cluster_name_pattern, node_id_pattern } from './names.js'
export type { ReplicationReporter, ReplicationRole, ReplicationStatus } from './status.js'
