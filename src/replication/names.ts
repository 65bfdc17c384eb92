// Where a cluster lives in NATS (docs/replication.md, "What lives in NATS"): one
// JetStream stream of frames and one key-value bucket (the lease and the database id),
// named after the cluster.

/** A cluster name: letters, digits, `_` and `-`, so it can stand in a stream, bucket and subject name. */
export const cluster_name_pattern = /^[A-Za-z0-9_-]{1,64}$/

/** A node id: the same characters (it is written into message headers and the lease). */
export const node_id_pattern = /^[A-Za-z0-9_.-]{1,64}$/

export interface ClusterNames {
  /** The stream of frames and term records. */
  stream: string
  /** Its one subject. */
  subject: string
  /** The key-value bucket of the lease and the database id. */
  bucket: string
}

export function clusterNames(cluster: string): ClusterNames {
  return { stream: `TENANTDB_${cluster}`, subject: `tenantdb.${cluster}.wal`, bucket: `tenantdb_${cluster}` }
}

/** Keys of the bucket. */
export const lease_key = 'lease'
export const database_key = 'database'
