// The OpenAPI 3.1 description of every route under /api/v1 (served at
// GET /api/v1/openapi.json). test/http-auth-routes.test.ts checks that every route the
// server registers is described here, so a new route without a description fails.
import { version } from '../version.js'

type Json = Record<string, unknown>

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: Json, example?: unknown): Json => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
})
const error = (description: string): Json => ({ description, content: json(ref('Error')) })

const tenantParam: Json = {
  name: 'tenant', in: 'path', required: true,
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }, description: 'tenant name',
}
const snapshotHeader: Json = {
  name: 'Service-Snapshot', in: 'header', required: false, schema: { type: 'string' },
  description: 'read the named snapshot of the path tenant (writes fail with readonly_snapshot)',
}
const queryParam = (name: string, schema: Json, description: string, required = false): Json => ({ name, in: 'query', required, schema, description })

/** Errors every authenticated route may answer. */
const common: Json = {
  401: error('missing or invalid token (`unauthorized`), with `WWW-Authenticate: Bearer`'),
  429: error('too many failed authentications from this address (`rate_limited`), with `Retry-After`'),
  500: error('`storage_error` or `internal`'),
  503: error('the server is shutting down (`shutting_down`), or stopped writing after a disk failure (`storage_unavailable`, with `outcome`)'),
  507: error('the disk is full: nothing of the request was written (`storage_full`)'),
}
const perTenant: Json = { ...common, 404: error('`unknown_tenant`') }

function get(summary: string, response: Json, extra: Json = {}, responses: Json = common): Json {
  return { get: { summary, ...extra, responses: { 200: { description: 'OK', content: json(response) }, ...responses } } }
}

const anyObject: Json = { type: 'object', additionalProperties: true }

export const openapi_document = {
  openapi: '3.1.0',
  info: {
    title: 'tenantdb HTTP API',
    version,
    description: 'The local HTTP API of tenantdb (docs/api.md). Every route needs the server token.',
  },
  servers: [{ url: 'http://127.0.0.1:7070' }],
  security: [{ bearer: [] }, { serviceToken: [] }, { queryToken: [] }],
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <SERVICE_TOKEN>' },
      serviceToken: { type: 'apiKey', in: 'header', name: 'X-Service-Token' },
      queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'the only form a change-tail WebSocket accepts' },
    },
    schemas: {
      Error: {
        type: 'object', required: ['error', 'code'],
        properties: { error: { type: 'string' }, code: { type: 'string' } },
        additionalProperties: true,
        example: { error: 'missing or invalid token', code: 'unauthorized' },
      },
      QueryError: {
        type: 'object', required: ['error', 'code', 'conflict'],
        properties: {
          error: { type: 'string' }, code: { type: 'string' }, conflict: { type: 'boolean' },
          line: { type: 'integer' }, column: { type: 'integer' }, expected: { type: 'array', items: { type: 'string' } }, hint: { type: 'string' },
        },
      },
      TailEvent: {
        type: 'object', required: ['lsn', 'at', 'tenant', 'changes'],
        properties: {
          lsn: { type: 'integer' }, at: { type: 'string', format: 'date-time' }, tenant: { type: 'string' },
          changes: {
            type: 'array',
            items: {
              type: 'object', required: ['collection', 'op', 'key', 'row'],
              properties: {
                collection: { type: 'string' }, op: { enum: ['insert', 'update', 'delete'] },
                key: {}, row: { oneOf: [anyObject, { type: 'null' }] },
              },
            },
          },
        },
      },
      OpResult: { type: 'object', required: ['ok', 'message'], properties: { ok: { const: true }, message: { type: 'string' } } },
    },
  },
  paths: {
    '/api/v1/health': get('Liveness', {
      type: 'object', required: ['ok', 'tenant', 'version'],
      properties: { ok: { const: true }, tenant: { type: 'string' }, version: { type: 'string' } },
    }),
    '/api/v1/health/detail': get('Corruption, WAL, recovery and fsync detail', {
      type: 'object',
      properties: {
        ok: { type: 'boolean' },
        corruption: { type: 'object', properties: { total: { type: 'integer' }, reports: { type: 'array', items: anyObject } } },
        wal: { type: 'object', properties: { current_lsn: { type: 'integer' }, checkpoint_lsn: { type: 'integer' }, lag_bytes: { type: 'integer' }, bytes: { type: 'integer' } } },
        recovery: { type: 'object', properties: { replayed_frames: { type: 'integer' }, open_micros: { type: 'integer' } } },
        fsync: anyObject, page_count: { type: 'integer' }, db_dir: { type: 'string' },
      },
    }),
    '/api/v1/stats': get('Statistics', {
      type: 'object',
      properties: {
        page_count: { type: 'integer' }, wal_bytes: { type: 'integer' }, checkpoint_lsn: { type: 'integer' },
        corruption_count: { type: 'integer' }, db_dir: { type: 'string' }, tenants: {}, cache: anyObject, uptime_s: { type: 'number' },
      },
    }),
    '/api/v1/tenants': get('The tenant catalog', { type: 'object', properties: { tenants: { type: 'array', items: anyObject } } }),
    '/api/v1/t/{tenant}/collections': get('Collections with row estimates (applies pending migration)',
      { type: 'object', properties: { tenant: { type: 'string' }, collections: { type: 'array', items: anyObject } } },
      { parameters: [tenantParam] }, { ...perTenant, 423: error('`tenant_suspended`') }),
    '/api/v1/t/{tenant}/schema': get('Schema IR and fingerprint status (never migrates)',
      { type: 'object', properties: { fingerprint: { type: 'string' }, ir: {}, tenant: anyObject } },
      { parameters: [tenantParam] }, perTenant),
    '/api/v1/t/{tenant}/snapshots': get('Named snapshots',
      { type: 'object', properties: { tenant: { type: 'string' }, snapshots: { type: 'array', items: anyObject } } },
      { parameters: [tenantParam] }, perTenant),
    '/api/v1/t/{tenant}/diff': get('Rows added, removed and changed between two versions',
      { type: 'object', properties: { from: anyObject, to: anyObject, collections: anyObject, truncated: { type: 'boolean' } } },
      {
        parameters: [
          tenantParam,
          queryParam('from', { type: 'string' }, 'snapshot name', true),
          queryParam('to', { type: 'string', default: 'head' }, 'snapshot name or head'),
          queryParam('collection', { type: 'string' }, 'only this collection'),
          queryParam('limit', { type: 'integer', minimum: 1 }, 'most rows in all'),
        ],
      },
      { ...perTenant, 400: error('`bad_request`, `unknown_collection`'), 423: error('`tenant_suspended`') }),
    '/api/v1/t/{tenant}/tail': {
      get: {
        summary: 'The change tail: an HTTP poll, or a WebSocket upgrade (backlog then live events)',
        description: 'With `Upgrade: websocket` the token must be `?token=` (a header token is refused with 401 before the upgrade); ' +
          'the server then sends one JSON text message per event (TailEvent), pings every 15 s, and closes with 1001 (shutdown), ' +
          '1009 (client message over 1 MiB), 1011 (failure), 1013 (consumer too slow; resume with after) or 4410 (lsn_expired).',
        parameters: [
          tenantParam,
          queryParam('after', { type: 'integer', minimum: 0 }, 'exclusive; absent: from the oldest retained event'),
          queryParam('collection', { type: 'string' }, 'only this collection'),
          queryParam('limit', { type: 'integer', minimum: 1 }, 'poll only: most events'),
          queryParam('wait_ms', { type: 'integer', minimum: 0, maximum: 30000 }, 'poll only: long-poll until an event arrives'),
        ],
        responses: {
          200: {
            description: 'a page of events (poll)',
            content: json({ type: 'object', required: ['events', 'last_lsn', 'head_lsn'], properties: { events: { type: 'array', items: ref('TailEvent') }, last_lsn: { type: 'integer' }, head_lsn: { type: 'integer' } } }),
          },
          101: { description: 'switched to the WebSocket protocol' },
          400: error('`bad_request` (a malformed or future `after`)'),
          410: error('`lsn_expired`; the body adds `oldest_lsn`'),
          423: error('`tenant_suspended`'),
          ...perTenant,
        },
      },
    },
    '/api/v1/t/{tenant}/query': {
      post: {
        summary: 'Run one pipeline or one atomic block',
        parameters: [tenantParam, snapshotHeader],
        requestBody: {
          required: true,
          content: {
            ...json({ type: 'object', properties: { query: { type: 'string' }, text: { type: 'string' }, params: anyObject } }, { query: 'users | where age > $a | take 5', params: { a: 30 } }),
            'text/plain': { schema: { type: 'string' }, example: 'users | take 5' },
          },
        },
        responses: {
          200: {
            description: 'OK',
            content: json({ type: 'object', required: ['columns', 'rows'], properties: { columns: { type: 'array', items: { type: 'string' } }, rows: { type: 'array', items: { type: 'array' } }, plan: anyObject, lsn: { type: 'integer' }, truncated: { type: 'boolean' }, results: { type: 'array' }, stats: anyObject } }),
          },
          400: { description: 'every failure of the query itself', content: json(ref('QueryError')) },
          413: error('`payload_too_large`'),
          ...perTenant,
        },
      },
    },
    '/api/v1/t/{tenant}/ops': {
      post: {
        summary: 'Tenant operations',
        parameters: [tenantParam],
        requestBody: {
          required: true,
          content: json({
            type: 'object', required: ['op'],
            properties: { op: { enum: ['create', 'fork', 'snapshot', 'suspend', 'resume', 'delete', 'compact'] }, name: { type: 'string' }, target: { type: 'string' } },
          }, { op: 'snapshot', name: 'acme', target: 'before' }),
        },
        responses: {
          200: { description: 'OK', content: json(ref('OpResult'), { ok: true, message: 'snapshot acme@before created' }) },
          400: error('`bad_request`'),
          409: error('`tenant_exists`, `snapshot_exists`'),
          413: error('`payload_too_large`'),
          423: error('`tenant_suspended`'),
          ...perTenant,
        },
      },
    },
    '/api/v1/schema.eel': {
      get: {
        summary: 'The schema source the server was started with',
        responses: { 200: { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } }, ...common },
      },
    },
    '/api/v1/openapi.json': get('This document', anyObject),
  },
} as const

/** The fastify route path of an OpenAPI path (`{tenant}` → `:tenant`). */
export function routePath(openapiPath: string): string {
  return openapiPath.replace(/\{(\w+)\}/g, ':$1')
}
