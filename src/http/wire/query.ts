// The answer of the query route (docs/api.md, "Queries"), and its type.
import { ref, type FromSchema } from './from-schema.js'
import type { Value } from './values.js'

const string = { type: 'string' } as const
const integer = { type: 'integer' } as const
const columns = { type: 'array', items: string } as const
const rows = { type: 'array', items: { type: 'array', items: ref('Value') } } as const

export const plan_schema = {
  type: 'object', required: ['collection', 'access'],
  description: 'how the pipeline reads its collection, and each lookup stage its own',
  properties: {
    collection: string, access: { enum: ['primary', 'index', 'scan'] }, index: string,
    lookups: {
      type: 'array',
      items: { type: 'object', required: ['collection', 'access'], properties: { collection: string, access: { enum: ['primary', 'index', 'hash'] }, index: string } },
    },
  },
} as const

export const query_result_body = {
  type: 'object', required: ['columns', 'rows', 'stats'],
  properties: {
    columns, rows,
    plan: plan_schema,
    lsn: { type: 'integer', description: 'the commit of a write' },
    truncated: { type: 'boolean', description: 'more rows matched than one answer holds' },
    results: {
      type: 'array', description: 'an atomic block: one per statement',
      items: { type: 'object', required: ['columns', 'rows'], properties: { columns, rows, plan: plan_schema, truncated: { type: 'boolean' } } },
    },
    stats: { type: 'object', required: ['elapsed_ms', 'rows_examined'], properties: { elapsed_ms: { type: 'number' }, rows_examined: integer } },
  },
} as const

type Refs = { Value: Value }

export type Plan = FromSchema<typeof plan_schema>
export type QueryResult = FromSchema<typeof query_result_body, Refs>
