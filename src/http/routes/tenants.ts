// The catalog and per-tenant read routes (docs/api.md, "Tenants"): tenants, collections,
// schema status, snapshots and diffs.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../database/index.js'
import { diff_rows_default } from '../../limits.js'
import { described, intQuery, responses, suspended, tenant_params, unknown_tenant } from '../schemas.js'
import {
  collections_body, diff_body, schema_status_body, snapshots_body, tenants_body,
  type CollectionEntry, type SchemaStatus, type SnapshotEntry, type TenantEntry,
} from '../wire/index.js'

interface TenantParams { tenant: string }
interface DiffQuery { from: string; to?: string; collection?: string; limit: number }

const tenants = {
  operationId: 'listTenants',
  summary: 'The tenant catalog',
  response: responses({ 200: described('OK', tenants_body) }),
}

const collections = {
  operationId: 'listCollections',
  summary: 'Collections with row estimates (applies pending migration)',
  params: tenant_params,
  response: responses(
    { 200: described('OK', collections_body) },
    {
      ...unknown_tenant,
      ...suspended,
      409: '`conflict`: the pending migration this applies lost a race with another write of the tenant (nothing changed; retry)',
    },
  ),
}

const schema_status = {
  operationId: 'getTenantSchema',
  summary: 'Schema IR and fingerprint status (never migrates)',
  params: tenant_params,
  response: responses(
    { 200: described('OK', schema_status_body) },
    unknown_tenant,
  ),
}

const snapshots = {
  operationId: 'listSnapshots',
  summary: 'Named snapshots',
  params: tenant_params,
  response: responses(
    { 200: described('OK', snapshots_body) },
    unknown_tenant,
  ),
}

const diff = {
  operationId: 'diffVersions',
  summary: 'Rows added, removed and changed between two versions',
  params: tenant_params,
  querystring: {
    type: 'object', required: ['from'],
    properties: {
      from: { type: 'string', minLength: 1, description: 'snapshot name, or tenant@snapshot of another tenant (a fork\'s source at the fork point)' },
      to: { type: 'string', description: 'snapshot name or head (the default)' },
      collection: { type: 'string', description: 'only this collection' },
      limit: intQuery('most rows in all', { minimum: 1, default: diff_rows_default }),
    },
  },
  response: responses(
    { 200: described('OK', diff_body) },
    {
      400: '`bad_request` (a missing or empty `from`, a malformed `limit`), `unknown_collection`, or a refused path',
      404: '`unknown_tenant`, `unknown_snapshot`',
      ...suspended,
    },
  ),
}

// The answers are typed as their wire types (wire/tenants.ts), so what the database
// returns must be what the schema describes; a diff's rows hold Dates until they are
// written as JSON, so its answer is checked by the tests (test/http-wire-types.test.ts).

/** Readable with a read token of the tenant (route-access.ts). */
const read = { access: { tenant: 'read' } } as const

export function tenantRoutes(db: Database) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get('/api/v1/tenants', { schema: tenants, config: { access: 'service' } }, async (): Promise<{ tenants: TenantEntry[] }> => db.tenants())

    // Touching collections applies pending lazy migration (docs/api.md, "Tenants").
    app.get<{ Params: TenantParams }>('/api/v1/t/:tenant/collections', { schema: collections, config: read }, async (request): Promise<{ tenant: string; collections: CollectionEntry[] }> => db.tenant(request.params.tenant).collections())

    // Never migrates (docs/api.md, "Tenants"); a suspended tenant's status is still shown.
    // Which migrations are blocked is known where the check at start and the tries ran:
    // on a server on every core, the opening thread answers (docs/architecture.md, "Every core").
    app.get<{ Params: TenantParams }>('/api/v1/t/:tenant/schema', { schema: schema_status, config: { ...read, opener: true } }, async (request): Promise<SchemaStatus> => db.tenant(request.params.tenant).schema())

    app.get<{ Params: TenantParams }>('/api/v1/t/:tenant/snapshots', { schema: snapshots, config: read }, async (request): Promise<{ tenant: string; snapshots: SnapshotEntry[] }> => db.tenant(request.params.tenant).snapshots())

    // `from` may name another tenant's snapshot: the token must open that tenant too.
    app.get<{ Params: TenantParams; Querystring: DiffQuery }>('/api/v1/t/:tenant/diff', { schema: diff, config: { access: { tenant: 'read', references: ['from'] } } }, async (request) => {
      const { from, to, collection, limit } = request.query
      return db.tenant(request.params.tenant).diff({ from, ...(to === undefined ? {} : { to }), ...(collection === undefined ? {} : { collection }), limit })
    })
  }
}
