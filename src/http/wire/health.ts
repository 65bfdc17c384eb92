// The bodies of /health, /health/detail, /stats and /trends (docs/api.md, "Health and
// stats", "Trends"), and their types.
import { ref, type FromSchema } from './from-schema.js'
import { isolation_detail_schema, refusals_schema } from './usage.js'

const integer = { type: 'integer' } as const

export const health_body = {
  type: 'object', required: ['ok', 'tenant', 'version'],
  properties: { ok: { const: true }, tenant: { type: 'string' }, version: { type: 'string' } },
} as const

/** The page file by its 4 KiB slots: page_count = 2 (the meta slots) + live + free + pending + releasing. */
export const pages_schema = {
  $id: 'Pages',
  type: 'object', required: ['file_bytes', 'live', 'free', 'pending', 'releasing'],
  description: 'the page file by its slots: file_bytes, live (in use), free (reusable now), pending (freed, held back for the older meta record or a reader), releasing (freed, references not yet released)',
  properties: { file_bytes: integer, live: integer, free: integer, pending: integer, releasing: integer },
} as const

const cache = {
  type: 'object', required: ['hits', 'misses', 'bytes', 'memory_reads'],
  description: 'node reads since open: the page cache\'s hits and misses, and reads of nodes still in memory (written since the last checkpoint)',
  properties: { hits: integer, misses: integer, bytes: integer, memory_reads: integer },
} as const

export const corruption_report_schema = {
  type: 'object', required: ['id', 'file', 'page', 'kind', 'count', 'first_seen', 'last_seen'],
  properties: {
    id: { type: 'string' }, file: { type: 'string', description: '`pages` or `wal/<segment>`' }, page: { type: ['integer', 'null'] },
    kind: { type: 'string' }, count: integer,
    first_seen: { type: 'string', format: 'date-time' }, last_seen: { type: 'string', format: 'date-time' },
  },
} as const

export const replication_schema = {
  type: 'object', required: ['role', 'term', 'node', 'cluster', 'mode', 'primary', 'applied_lsn', 'lag_frames', 'lag_ms', 'nats_connected', 'apply_lag_ms'],
  properties: {
    role: { enum: ['primary', 'fenced', 'candidate', 'follower'] }, term: integer, node: { type: 'string' },
    cluster: { type: 'string' }, mode: { enum: ['sync', 'async'] }, primary: { type: ['string', 'null'] },
    applied_lsn: integer,
    lag_frames: { type: 'integer', description: 'a follower: frames not applied yet; a primary: frames the stream has not acknowledged' },
    lag_ms: { type: 'number' },
    nats_connected: { type: 'boolean' },
    apply_lag_ms: {
      anyOf: [{ type: 'null' }, {
        type: 'object', required: ['p50', 'p99', 'max', 'samples'],
        properties: { p50: { type: 'number' }, p99: { type: 'number' }, max: { type: 'number' }, samples: integer },
      }],
    },
  },
} as const

export const health_detail_body = {
  type: 'object',
  required: ['ok', 'fail_stopped', 'corruption', 'wal', 'recovery', 'fsync', 'checkpoints', 'cache', 'page_count', 'pages', 'db_dir', 'isolation', 'replication'],
  properties: {
    ok: { type: 'boolean', description: 'false once the storage engine stopped writing (`fail_stopped`)' },
    fail_stopped: {
      type: ['string', 'null'],
      description: 'why the storage engine stopped writing (a failed write or fsync, or an internal error it caught), or null; restart the server',
    },
    corruption: { type: 'object', required: ['total', 'reports'], properties: { total: integer, reports: { type: 'array', items: corruption_report_schema } } },
    wal: { type: 'object', required: ['current_lsn', 'checkpoint_lsn', 'lag_bytes', 'bytes'], properties: { current_lsn: integer, checkpoint_lsn: integer, lag_bytes: integer, bytes: integer } },
    recovery: { type: 'object', required: ['replayed_frames', 'open_micros'], properties: { replayed_frames: integer, open_micros: integer } },
    fsync: {
      type: 'object', required: ['count', 'sum_micros', 'max_micros', 'buckets'],
      properties: {
        count: integer, sum_micros: integer, max_micros: integer,
        buckets: {
          type: 'array',
          items: {
            type: 'object', required: ['le_micros', 'count'],
            properties: { le_micros: { type: ['integer', 'null'], description: 'the bucket\'s upper bound; null for the last, unbounded one' }, count: integer },
          },
        },
      },
    },
    checkpoints: {
      type: 'object', required: ['count', 'in_place', 'pages_written', 'pages_released', 'max_micros'],
      properties: { count: integer, in_place: integer, pages_written: integer, pages_released: integer, max_micros: integer },
    },
    cache,
    page_count: { type: 'integer', description: 'the allocator tip, the two meta slots included' },
    pages: ref('Pages'),
    db_dir: { type: 'string' },
    isolation: isolation_detail_schema,
    replication: { description: 'null unless the server is a node of a cluster (docs/replication.md)', anyOf: [{ type: 'null' }, replication_schema] },
  },
} as const

export const stats_body = {
  type: 'object',
  required: ['page_count', 'wal_bytes', 'checkpoint_lsn', 'corruption_count', 'db_dir', 'tenants', 'cache', 'pages', 'uptime_s', 'refusals'],
  properties: {
    page_count: integer, wal_bytes: integer, checkpoint_lsn: integer, corruption_count: integer, db_dir: { type: 'string' },
    tenants: integer, cache, pages: ref('Pages'), uptime_s: integer,
    refusals: { ...refusals_schema, description: 'statements refused or stopped by a limit since the server started, every tenant\'s, by code' },
  },
} as const

const column = { type: 'array', items: { type: ['number', 'null'] } } as const

/** /trends: `series` holds one column per figure (the route's schema names them: trend-ring.ts). */
export const trends_body = {
  type: 'object', required: ['interval_ms', 'capacity', 'series'],
  properties: {
    interval_ms: integer,
    capacity: { type: 'integer', description: 'samples kept at most' },
    series: { type: 'object', additionalProperties: column },
  },
} as const

export type PageSlots = FromSchema<typeof pages_schema>
type Refs = { Pages: PageSlots }

export type Health = FromSchema<typeof health_body>
export type CorruptionReport = FromSchema<typeof corruption_report_schema>
export type Replication = FromSchema<typeof replication_schema>
export type HealthDetail = FromSchema<typeof health_detail_body, Refs>
export type Stats = FromSchema<typeof stats_body, Refs>
export type Trends = FromSchema<typeof trends_body>
