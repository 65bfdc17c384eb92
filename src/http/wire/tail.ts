// The change tail's events and its poll's page (docs/api.md, "Change tail"), and their types.
import { ref, type FromSchema } from './from-schema.js'
import { row_schema, type Value } from './values.js'

export const tail_event_schema = {
  $id: 'TailEvent',
  type: 'object', required: ['lsn', 'at', 'tenant', 'changes'],
  properties: {
    lsn: { type: 'integer' }, at: { type: 'string', format: 'date-time' }, tenant: { type: 'string' },
    changes: {
      type: 'array',
      items: {
        type: 'object', required: ['collection', 'op', 'key', 'row'],
        properties: {
          collection: { type: 'string' }, op: { enum: ['insert', 'update', 'delete'] },
          key: ref('Value'), row: { oneOf: [row_schema, { type: 'null' }] },
        },
      },
    },
    restored: {
      type: 'object', required: ['snapshot', 'lsn'],
      description: 'only on a restore (no changes): the tenant\'s data is now this snapshot\'s, taken at lsn',
      properties: { snapshot: { type: 'string' }, lsn: { type: 'integer' } },
    },
  },
} as const

export const tail_page_body = {
  type: 'object', required: ['events', 'last_lsn', 'head_lsn'],
  properties: { events: { type: 'array', items: ref('TailEvent') }, last_lsn: { type: 'integer' }, head_lsn: { type: 'integer' } },
} as const

export type TailEvent = FromSchema<typeof tail_event_schema, { Value: Value }>
export type TailChange = TailEvent['changes'][number]
export type TailPage = FromSchema<typeof tail_page_body, { TailEvent: TailEvent }>
