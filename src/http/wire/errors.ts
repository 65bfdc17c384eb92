// The error bodies (docs/api.md, "Errors"): the shared schemas `Error` and `QueryError`
// every route's error responses name, and their types.
import { error_statuses, type ErrorCode } from './error-codes.js'
import type { FromSchema } from './from-schema.js'

const codes = Object.keys(error_statuses) as ErrorCode[]
const code = { enum: codes } as const
const conflict = { type: 'boolean', description: 'true only for a lost first-committer-wins race: nothing was changed, and retrying is safe' } as const
const primary = { type: ['string', 'null'], description: '`not_primary`: the URL writes go to, null while none is known' } as const
const outcome = { enum: ['not_written', 'unknown'], description: '`not_primary`, `storage_unavailable`: whether the write may have taken effect' } as const

export const error_schema = {
  $id: 'Error',
  type: 'object', required: ['error', 'code', 'conflict'],
  description: 'every error body: a sentence, a code of the catalogue and `conflict` (docs/api.md, "Errors"); some add fields',
  properties: {
    error: { type: 'string' }, code, conflict,
    oldest_lsn: { type: 'integer', description: '`lsn_expired`: the oldest LSN the change tail still retains' },
    primary, outcome,
  },
  additionalProperties: true,
  examples: [{ error: 'missing or invalid token', code: 'unauthorized', conflict: false }],
} as const

export const query_error_schema = {
  $id: 'QueryError',
  type: 'object', required: ['error', 'code', 'conflict'],
  description: 'an error of the query route: `conflict` is true only for a lost race (retry), Eel errors add their position, and a refused write the fields it is about',
  properties: {
    error: { type: 'string' }, code, conflict,
    line: { type: 'integer' }, column: { type: 'integer' },
    what: { type: 'string', description: 'an Eel error\'s sentence without the position in front and the hint behind' },
    expected: { type: 'array', items: { type: 'string' } }, hint: { type: 'string' },
    fields: {
      type: 'array', items: { type: 'string' },
      description: '`type_error`, `constraint_violation` of a write: the fields of the written collection the refusal is about',
    },
    primary, outcome,
  },
  examples: [{ error: 'no collection named \'user\'', code: 'unknown_collection', conflict: false, line: 1, column: 1 }],
} as const

/** Every error body. */
export type ErrorBody = FromSchema<typeof error_schema>
/** An error body of the query route. */
export type QueryErrorBody = FromSchema<typeof query_error_schema>
