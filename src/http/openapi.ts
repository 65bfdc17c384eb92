// The OpenAPI 3.1 description of every route under /api/v1 (served at
// GET /api/v1/openapi.json). test/http-auth-routes.test.ts checks that every route the
// server registers is described here, so a new route without a description fails.
import { body_bytes_max, query_int_param_max, request_timeout_ms, tail_limit_max, tail_wait_ms_max } from '../limits.js'
import { name_pattern } from '../tenants/index.js'
import { version } from '../version.js'
import { error_statuses } from './errors.js'

type Json = Record<string, unknown>

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: Json, example?: unknown): Json => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
})
const error = (description: string): Json => ({ description, content: json(ref('Error')) })

const tenant_name_pattern = name_pattern.source
const tenantParam: Json = {
  name: 'tenant', in: 'path', required: true,
  schema: { type: 'string', pattern: tenant_name_pattern }, description: 'tenant name',
}
const snapshotHeader: Json = {
  name: 'Service-Snapshot', in: 'header', required: false, schema: { type: 'string' },
  description: 'read the named snapshot of the path tenant (writes fail with readonly_snapshot)',
}
const queryParam = (name: string, schema: Json, description: string, required = false): Json => ({ name, in: 'query', required, schema, description })

/**
 * Errors any operation may answer: refusals before routing (docs/api.md "Paths",
 * "Origins and hosts"), authentication, timeouts, and failures of the server.
 */
const common: Json = {
  400: error('`bad_request`: a refused path spelling, a malformed parameter or request, or a body that is not well-formed UTF-8'),
  401: error('missing or invalid token (`unauthorized`), with `WWW-Authenticate: Bearer`'),
  403: error('`host_not_allowed` (Host names another server) or `origin_not_allowed` (an Origin, or Sec-Fetch-Site cross-site/same-site without one, that is not allowed)'),
  408: error(`\`request_timeout\`: the request was not received within ${request_timeout_ms / 1000} s`),
  429: error('too many wrong tokens from this address (`rate_limited`), with `Retry-After`'),
  431: error('`headers_too_large`'),
  500: error('`storage_error` or `internal`'),
  503: error('the server is shutting down (`shutting_down`), or stopped writing after a disk failure (`storage_unavailable`, with `outcome`)'),
  507: error('the disk is full: nothing of the request was written (`storage_full`)'),
}
const perTenant: Json = { ...common, 404: error('`unknown_tenant`') }
const pagesSchema: Json = {
  type: 'object',
  description: 'the page file by its slots: file_bytes, live (in use), free (reusable now), pending (freed, held back for the older meta record or a reader), releasing (freed, references not yet released)',
  properties: { file_bytes: { type: 'integer' }, live: { type: 'integer' }, free: { type: 'integer' }, pending: { type: 'integer' }, releasing: { type: 'integer' } },
}
/** Routes that read a request body. */
const withBody: Json = { 413: error(`\`payload_too_large\` (a body over ${body_bytes_max} bytes)`) }
/** Routes that write. */
const writes: Json = { 507: error('`storage_full`: the disk is full; nothing was written') }
const suspended: Json = { 423: error('`tenant_suspended`') }

function get(summary: string, response: Json, extra: Json = {}, responses: Json = common): Json {
  return { get: { summary, ...extra, responses: { 200: { description: 'OK', content: json(response) }, ...responses } } }
}

const anyObject: Json = { type: 'object', additionalProperties: true }
const intParam = (extra: Json = {}): Json => ({ type: 'integer', minimum: 0, maximum: query_int_param_max, ...extra })
const name: Json = { type: 'string', pattern: tenant_name_pattern }

export const openapi_document = {
  openapi: '3.1.0',
  info: {
    title: 'tenantdb HTTP API',
    version,
    description: 'The local HTTP API of tenantdb (docs/api.md). Every route needs the server token. ' +
      'A path is percent-decoded once before routing; encoded `/` or `\\`, `%`, `//`, dot segments and absolute-form ' +
      'request targets are refused with 400. A known path under a method it does not take answers 405 ' +
      '`method_not_allowed` with `Allow`; an unknown path 404 `not_found` (both after authentication).',
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
        properties: { error: { type: 'string' }, code: { enum: Object.keys(error_statuses) } },
        additionalProperties: true,
        example: { error: 'missing or invalid token', code: 'unauthorized' },
      },
      QueryError: {
        type: 'object', required: ['error', 'code', 'conflict'],
        properties: {
          error: { type: 'string' }, code: { enum: Object.keys(error_statuses) }, conflict: { type: 'boolean' },
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
        pages: pagesSchema,
        checkpoints: {
          type: 'object', required: ['count', 'in_place', 'pages_written', 'pages_released', 'max_micros'],
          properties: {
            count: { type: 'integer' }, in_place: { type: 'integer' }, pages_written: { type: 'integer' },
            pages_released: { type: 'integer' }, max_micros: { type: 'integer' },
          },
        },
        fsync: anyObject, page_count: { type: 'integer' }, db_dir: { type: 'string' },
      },
    }),
    '/api/v1/stats': get('Statistics', {
      type: 'object',
      properties: {
        page_count: { type: 'integer' }, wal_bytes: { type: 'integer' }, checkpoint_lsn: { type: 'integer' },
        corruption_count: { type: 'integer' }, db_dir: { type: 'string' }, tenants: {}, cache: anyObject, pages: pagesSchema, uptime_s: { type: 'number' },
      },
    }),
    '/api/v1/tenants': get('The tenant catalog', { type: 'object', properties: { tenants: { type: 'array', items: anyObject } } }),
    '/api/v1/t/{tenant}/collections': get('Collections with row estimates (applies pending migration)',
      { type: 'object', properties: { tenant: { type: 'string' }, collections: { type: 'array', items: anyObject } } },
      { parameters: [tenantParam] }, {
        ...perTenant,
        ...suspended,
        409: error('`conflict`: the pending migration this applies lost a race with another write of the tenant (nothing changed; retry)'),
      }),
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
          queryParam('from', { type: 'string', minLength: 1 }, 'snapshot name', true),
          queryParam('to', { type: 'string', default: 'head' }, 'snapshot name or head'),
          queryParam('collection', { type: 'string' }, 'only this collection'),
          queryParam('limit', intParam({ minimum: 1 }), 'most rows in all'),
        ],
      },
      {
        ...perTenant,
        400: error('`bad_request` (a missing `from`, a malformed `limit`), `unknown_collection`, or a refused path'),
        404: error('`unknown_tenant`, `unknown_snapshot`'),
        ...suspended,
      }),
    '/api/v1/t/{tenant}/tail': {
      get: {
        summary: 'The change tail: an HTTP poll, or a WebSocket upgrade (backlog then live events)',
        description: 'With `Upgrade: websocket` the token must be `?token=` (a header token is refused with 401 before the upgrade); ' +
          'the server then sends one JSON text message per event (TailEvent), pings every 15 s, and closes with 1001 (shutdown), ' +
          '1009 (client message over 1 MiB), 1011 (failure), 1013 (consumer too slow; resume with after) or 4410 (lsn_expired). ' +
          'Every refusal (400, 401, 403, 404, 410, 423) comes before the upgrade.',
        parameters: [
          tenantParam,
          queryParam('after', intParam(), 'exclusive; absent: from the oldest retained event. Beyond the newest commit: 400'),
          queryParam('collection', { type: 'string' }, 'only this collection (an unknown one has no events)'),
          queryParam('limit', intParam({ minimum: 1 }), `poll only: most events; more than ${tail_limit_max} is lowered to ${tail_limit_max}`),
          queryParam('wait_ms', intParam({ maximum: tail_wait_ms_max }), `poll only: long-poll until an event arrives, at most ${tail_wait_ms_max} ms (more is refused with 400)`),
        ],
        responses: {
          200: {
            description: 'a page of events (poll)',
            content: json({ type: 'object', required: ['events', 'last_lsn', 'head_lsn'], properties: { events: { type: 'array', items: ref('TailEvent') }, last_lsn: { type: 'integer' }, head_lsn: { type: 'integer' } } }),
          },
          101: { description: 'switched to the WebSocket protocol' },
          ...perTenant,
          400: error('`bad_request`: a malformed `after`, `limit` or `wait_ms`, a `wait_ms` over the maximum, an `after` beyond the newest commit, or a refused path'),
          410: error('`lsn_expired`; the body adds `oldest_lsn`'),
          ...suspended,
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
            ...json({
              type: 'object',
              properties: { query: { type: 'string' }, text: { type: 'string' }, params: anyObject },
              oneOf: [{ required: ['query'] }, { required: ['text'] }],
            }, { query: 'users | where age > $a | take 5', params: { a: 30 } }),
            'text/plain': { schema: { type: 'string' }, example: 'users | take 5' },
          },
        },
        responses: {
          200: {
            description: 'OK',
            content: json({ type: 'object', required: ['columns', 'rows'], properties: { columns: { type: 'array', items: { type: 'string' } }, rows: { type: 'array', items: { type: 'array' } }, plan: anyObject, lsn: { type: 'integer' }, truncated: { type: 'boolean' }, results: { type: 'array' }, stats: anyObject } }),
          },
          ...perTenant,
          400: {
            description: 'every failure of the query itself, and a malformed or ill-formed-UTF-8 body (QueryError, with `conflict`); ' +
              'a refused path (Error, without `conflict`)',
            content: json({ anyOf: [ref('QueryError'), ref('Error')] }),
          },
          404: error('`unknown_tenant`, `unknown_snapshot` (Service-Snapshot); the body adds `conflict: false`'),
          ...withBody,
          ...writes,
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
            oneOf: [
              { type: 'object', required: ['op'], properties: { op: { enum: ['create', 'suspend', 'resume', 'delete'] }, name } },
              { type: 'object', required: ['op', 'target'], properties: { op: { enum: ['fork', 'snapshot'] }, name: { type: 'string' }, target: name } },
              { type: 'object', required: ['op'], properties: { op: { const: 'compact' } } },
            ],
          }, { op: 'snapshot', name: 'acme', target: 'before' }),
        },
        responses: {
          200: { description: 'OK', content: json(ref('OpResult'), { ok: true, message: 'snapshot before of acme at lsn 17' }) },
          ...perTenant,
          400: error('`bad_request`: a body that is not the JSON object described, a bad name, or a refused path'),
          404: error('`unknown_tenant`, `unknown_snapshot`'),
          409: error('`tenant_exists`, `snapshot_exists`, `conflict` (another operation on the tenant won; retry)'),
          ...suspended,
          ...withBody,
          ...writes,
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
