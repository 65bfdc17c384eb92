// GET /api/v1/health: liveness (docs/api.md, "Health and stats"), which says nothing of
// corruption or WAL lag; GET /api/v1/health/detail and /api/v1/stats say that.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import type { ReplicationReporter } from '../../replication/index.js'
import { anyObject, described, ref, responses } from '../schemas.js'

export interface HealthBody {
  ok: true
  tenant: string
  version: string
}

const health = {
  operationId: 'getHealth',
  summary: 'Liveness',
  response: responses({
    200: described('OK', {
      type: 'object', required: ['ok', 'tenant', 'version'],
      properties: { ok: { const: true }, tenant: { type: 'string' }, version: { type: 'string' } },
    }),
  }),
}

const health_detail = {
  operationId: 'getHealthDetail',
  summary: 'Corruption, WAL, recovery and fsync detail',
  response: responses({
    200: described('OK', {
      type: 'object',
      properties: {
        ok: { type: 'boolean', description: 'false once the storage engine stopped writing (`fail_stopped`)' },
        fail_stopped: {
          type: ['string', 'null'],
          description: 'why the storage engine stopped writing (a failed write or fsync, or an internal error it caught), or null; restart the server',
        },
        corruption: { type: 'object', properties: { total: { type: 'integer' }, reports: { type: 'array', items: anyObject } } },
        wal: { type: 'object', properties: { current_lsn: { type: 'integer' }, checkpoint_lsn: { type: 'integer' }, lag_bytes: { type: 'integer' }, bytes: { type: 'integer' } } },
        recovery: { type: 'object', properties: { replayed_frames: { type: 'integer' }, open_micros: { type: 'integer' } } },
        pages: ref('Pages'),
        checkpoints: {
          type: 'object', required: ['count', 'in_place', 'pages_written', 'pages_released', 'max_micros'],
          properties: {
            count: { type: 'integer' }, in_place: { type: 'integer' }, pages_written: { type: 'integer' },
            pages_released: { type: 'integer' }, max_micros: { type: 'integer' },
          },
        },
        cache: {
          type: 'object', required: ['hits', 'misses', 'bytes', 'memory_reads'],
          properties: { hits: { type: 'integer' }, misses: { type: 'integer' }, bytes: { type: 'integer' }, memory_reads: { type: 'integer' } },
        },
        fsync: anyObject, page_count: { type: 'integer' }, db_dir: { type: 'string' },
        replication: {
          description: 'null unless the server is a node of a cluster (docs/replication.md)',
          anyOf: [{ type: 'null' }, {
            type: 'object', required: ['role', 'term', 'node', 'primary', 'applied_lsn', 'lag_frames', 'lag_ms'],
            properties: {
              role: { enum: ['primary', 'fenced', 'candidate', 'follower'] }, term: { type: 'integer' }, node: { type: 'string' },
              cluster: { type: 'string' }, mode: { enum: ['sync', 'async'] }, primary: { type: ['string', 'null'] },
              applied_lsn: { type: 'integer' }, lag_frames: { type: 'integer' }, lag_ms: { type: 'number' },
              nats_connected: { type: 'boolean' }, apply_lag_ms: { anyOf: [{ type: 'null' }, anyObject] },
            },
          }],
        },
      },
    }),
  }),
}

const stats = {
  operationId: 'getStats',
  summary: 'Statistics',
  response: responses({
    200: described('OK', {
      type: 'object',
      properties: {
        page_count: { type: 'integer' }, wal_bytes: { type: 'integer' }, checkpoint_lsn: { type: 'integer' },
        corruption_count: { type: 'integer' }, db_dir: { type: 'string' }, tenants: { type: 'integer' }, cache: anyObject, pages: ref('Pages'), uptime_s: { type: 'number' },
      },
    }),
  }),
}

export function healthRoutes(db: Database, replication: ReplicationReporter | null) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/api/v1/health', { schema: health, config: { access: 'any' } }, async (): Promise<HealthBody> => db.health())
    app.get('/api/v1/health/detail', { schema: health_detail, config: { access: 'service' } }, async () => ({ ...db.healthDetail(), replication: replication?.status() ?? null }))
    app.get('/api/v1/stats', { schema: stats, config: { access: 'service' } }, async () => db.stats())
  }
}
