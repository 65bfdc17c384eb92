// The bodies of the tenant routes (docs/api.md, "Tenants", "Operations"): the catalog,
// collections, schema status, snapshots, diffs, an operation and its answer; and their
// types. The schema IR's type is written once, in src/schema/ir.ts (import-free): the
// document names it an object, the type says its fields.
import type { SchemaIR } from '../../schema/ir.js'
import { name_pattern } from '../../tenants/names.js'
import { tenant_limit_names, tenant_limit_value_max } from '../../tenants/tenant-limits.js'
import { ref, type FromSchema } from './from-schema.js'
import { row_schema, type Value } from './values.js'

const string = { type: 'string' } as const
const integer = { type: 'integer' } as const
const date_time = { type: 'string', format: 'date-time' } as const

export const tenant_entry_schema = {
  type: 'object', required: ['name', 'state', 'created_at', 'parent', 'schema'],
  properties: {
    name: string, state: { enum: ['active', 'suspended'] }, created_at: date_time,
    parent: {
      description: 'what it was forked from (null: created)',
      anyOf: [{ type: 'null' }, {
        type: 'object', required: ['tenant', 'snapshot', 'lsn'],
        properties: { tenant: string, snapshot: { type: ['string', 'null'] }, lsn: integer },
      }],
    },
    schema: {
      type: 'object', required: ['fingerprint', 'pending'],
      properties: { fingerprint: { type: ['string', 'null'], description: 'of the schema it was last migrated to' }, pending: { type: 'boolean' } },
    },
  },
} as const

export const tenants_body = {
  type: 'object', required: ['tenants'],
  properties: { tenants: { type: 'array', items: tenant_entry_schema } },
} as const

export const collection_entry_schema = {
  type: 'object', required: ['name', 'rows', 'indexes'],
  properties: { name: string, rows: { type: 'integer', description: 'an estimate' }, indexes: { type: 'array', items: string } },
} as const

export const collections_body = {
  type: 'object', required: ['tenant', 'collections'],
  properties: { tenant: string, collections: { type: 'array', items: collection_entry_schema } },
} as const

/** The schema IR (docs/language.md, "Schema files"), as a shared schema. */
export const schema_ir_schema = {
  $id: 'SchemaIR',
  type: 'object', additionalProperties: true,
  description: 'the schema IR: the canonical JSON form of the loaded schema files (docs/language.md)',
} as const

export const schema_status_body = {
  type: 'object', required: ['fingerprint', 'ir', 'tenant'],
  properties: {
    fingerprint: string,
    ir: ref('SchemaIR'),
    tenant: {
      type: 'object', required: ['applied_fingerprint', 'pending', 'blocked'],
      properties: {
        applied_fingerprint: { type: ['string', 'null'] }, pending: { type: 'boolean' },
        blocked: { type: ['string', 'null'], description: 'why its pending migration cannot be applied, or null' },
      },
    },
  },
} as const

export const snapshot_entry_schema = {
  type: 'object', required: ['name', 'lsn', 'created_at'],
  properties: { name: string, lsn: integer, created_at: date_time },
} as const

export const snapshots_body = {
  type: 'object', required: ['tenant', 'snapshots'],
  properties: { tenant: string, snapshots: { type: 'array', items: snapshot_entry_schema } },
} as const

const version = { type: 'object', required: ['name', 'lsn'], properties: { name: string, lsn: integer } } as const

export const diff_collection_schema = {
  type: 'object', required: ['added', 'removed', 'changed'],
  properties: {
    added: { type: 'array', items: row_schema },
    removed: { type: 'array', items: row_schema },
    changed: {
      type: 'array',
      items: { type: 'object', required: ['key', 'before', 'after'], properties: { key: ref('Value'), before: row_schema, after: row_schema } },
    },
  },
} as const

export const diff_body = {
  type: 'object', required: ['from', 'to', 'collections', 'truncated'],
  properties: { from: version, to: version, collections: { type: 'object', additionalProperties: diff_collection_schema }, truncated: { type: 'boolean' } },
} as const

const name_part = name_pattern.source.slice(1, -1)
const tenant_name = { type: 'string', pattern: name_pattern.source, description: 'a tenant name (defaults to the path tenant)' } as const
const any_name = { type: 'string', pattern: `^${name_part}(@${name_part})?$`, description: 'a tenant name, or tenant@snapshot (defaults to the path tenant)' } as const
const snapshot_name = { type: 'string', pattern: `^${name_part}@${name_part}$`, description: 'tenant@snapshot' } as const
const limit_value = { anyOf: [{ type: 'integer', minimum: 1, maximum: tenant_limit_value_max }, { type: 'null' }] } as const
/** `limits` on any other operation is refused (checkOpRequest): no value is valid there. */
const only_limit_takes_limits = { not: {}, description: 'only limit takes limits' } as const
const limits_change = {
  type: 'object', additionalProperties: false,
  properties: Object.fromEntries(tenant_limit_names.map((name) => [name, limit_value])) as Record<typeof tenant_limit_names[number], typeof limit_value>,
  description: 'limit names to whole numbers; null returns one to the server\'s default (docs/operations.md, "Isolation")',
} as const

/**
 * The body of POST …/ops: one branch per op, each naming its own fields. It describes
 * what checkOpRequest (src/tenants/op-request.ts), the one check of an operation,
 * accepts, no more and no less (test/http-validation.test.ts compares the two over every
 * combination of op, name and target it tries).
 */
export const op_body = {
  type: 'object', required: ['op'],
  properties: { op: string, name: string, target: string, limits: { type: 'object' } },
  oneOf: [
    { type: 'object', required: ['op'], properties: { limits: only_limit_takes_limits, op: { enum: ['create', 'suspend', 'resume'] }, name: tenant_name } },
    { type: 'object', required: ['op'], properties: { limits: only_limit_takes_limits, op: { const: 'delete' }, name: any_name }, description: 'tenant@snapshot drops that snapshot' },
    { type: 'object', required: ['op', 'target'], properties: { limits: only_limit_takes_limits, op: { const: 'fork' }, name: any_name, target: { ...tenant_name, description: 'the new tenant' } } },
    { type: 'object', required: ['op', 'target'], properties: { limits: only_limit_takes_limits, op: { const: 'snapshot' }, name: tenant_name, target: { ...tenant_name, description: 'the snapshot name' } } },
    { type: 'object', required: ['op', 'name'], properties: { limits: only_limit_takes_limits, op: { const: 'restore' }, name: snapshot_name }, description: 'the tenant\'s head becomes that snapshot\'s version' },
    { type: 'object', required: ['op'], properties: { limits: only_limit_takes_limits, op: { const: 'compact' } }, description: 'always the path tenant: a name given is not used' },
    { type: 'object', required: ['op', 'limits'], properties: { op: { const: 'limit' }, name: tenant_name, limits: limits_change }, description: 'sets limits of the tenant (the service token only)' },
  ],
  examples: [{ op: 'snapshot', name: 'acme', target: 'before' }],
} as const

export const op_result_schema = {
  $id: 'OpResult',
  type: 'object', required: ['ok', 'message'],
  properties: { ok: { const: true }, message: string },
  examples: [{ ok: true, message: 'snapshot before of acme at lsn 17' }],
} as const

type Refs = { SchemaIR: SchemaIR; Value: Value }

export type TenantEntry = FromSchema<typeof tenant_entry_schema>
export type CollectionEntry = FromSchema<typeof collection_entry_schema>
export type SchemaStatus = FromSchema<typeof schema_status_body, Refs>
export type SnapshotEntry = FromSchema<typeof snapshot_entry_schema>
export type DiffCollection = FromSchema<typeof diff_collection_schema, Refs>
export type DiffResult = FromSchema<typeof diff_body, Refs>
/** A tenant operation as the ops route takes it. */
export type TenantOp = FromSchema<typeof op_body>
export type OpResult = FromSchema<typeof op_result_schema>
