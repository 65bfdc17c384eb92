// The pieces the routes' schemas share: the shared component schemas (written in wire/,
// registered with app.addSchema, listed under components.schemas in the OpenAPI document), the tenant
// path parameter, the integer query parameters, and the error responses every route
// documents. Each route's own schema sits beside its handler (routes/*.ts): fastify
// validates requests with it (validation.ts) and @fastify/swagger generates the
// document from it (openapi.ts), so the two cannot drift apart.
import type { FastifyInstance } from 'fastify'
import { body_bytes_max, query_int_param_max, request_timeout_ms } from '../limits.js'
import { name_pattern } from '../tenants/index.js'
import {
  error_schema, op_result_schema, pages_schema, query_error_schema, ref as wireRef, schema_ir_schema, tail_event_schema, value_schema,
} from './wire/index.js'

export type Schema = Record<string, unknown>

const anyObject: Schema = { type: 'object', additionalProperties: true }

/** Component schemas (written once in wire/), referenced as `{ $ref: '<id>#' }` (see ref). */
const shared: readonly Schema[] = [error_schema, query_error_schema, tail_event_schema, op_result_schema, pages_schema, value_schema, schema_ir_schema]

export function addSharedSchemas(app: FastifyInstance): void {
  for (const schema of shared) app.addSchema(schema)
}

export type SharedSchema = 'Error' | 'QueryError' | 'TailEvent' | 'OpResult' | 'Pages' | 'Value' | 'SchemaIR'

/** A reference to a shared schema; the document names it #/components/schemas/<id>. */
export const ref = (id: SharedSchema) => wireRef(id)

export { anyObject }

/**
 * The tenant path parameter: the pattern tenant names are checked with (src/tenants/
 * names.ts), so the document and the validation say what a name can be (docs/api.md,
 * "Operations"). A name outside it is 400; a name no tenant has is 404.
 */
export const tenant_param: Schema = { type: 'string', pattern: name_pattern.source, description: 'tenant name' }

/** Params of the routes under /api/v1/t/:tenant. */
export const tenant_params: Schema = {
  type: 'object', required: ['tenant'],
  properties: { tenant: tenant_param },
}

/** An integer query parameter: digits, 0 to query_int_param_max unless narrowed. */
export const intQuery = (description: string, extra: Schema = {}): Schema =>
  ({ type: 'integer', minimum: 0, maximum: query_int_param_max, description, ...extra })

/**
 * Errors any operation may answer: refusals before routing (docs/api.md "Paths",
 * "Origins and hosts"), authentication, timeouts, and failures of the server.
 */
const common_errors: Readonly<Record<number, string>> = {
  400: '`bad_request`: a refused path spelling, a malformed parameter or request, or a body that is not well-formed UTF-8',
  401: 'a missing, invalid, revoked or expired token (`unauthorized`), with `WWW-Authenticate: Bearer`',
  403: '`forbidden` (a tenant token whose scope does not reach this route, operation or statement), `host_not_allowed` (Host names another server) or `origin_not_allowed` (an Origin, or Sec-Fetch-Site cross-site/same-site without one, that is not allowed)',
  408: `\`request_timeout\`: the request was not received within ${request_timeout_ms / 1000} s`,
  429: 'too many wrong tokens from this address (`rate_limited`), with `Retry-After`',
  431: '`headers_too_large`',
  500: '`storage_error` or `internal`',
  503: 'the server is shutting down (`shutting_down`), or stopped writing after a disk failure or an internal error (`storage_unavailable`, with `outcome`)',
  507: 'the disk is full: nothing of the request was written (`storage_full`)',
}

/** Routes under /api/v1/t/:tenant (a tenant token on a tenant it does not open is answered the same). */
export const unknown_tenant: Readonly<Record<number, string>> = { 404: '`unknown_tenant`' }
/** Routes that read a request body. */
export const with_body: Readonly<Record<number, string>> = { 413: `\`payload_too_large\` (a body over ${body_bytes_max} bytes)` }
/** Routes that write. */
export const writes: Readonly<Record<number, string>> = { 507: '`storage_full`: the disk is full; nothing was written' }
export const suspended: Readonly<Record<number, string>> = { 423: '`tenant_suspended`' }

/**
 * A response schema entry: its description, and the body's schema. Beside a $ref the
 * description is `description` (the document drops it from the reference); otherwise
 * @fastify/swagger's x-response-description, which stays out of the body's schema.
 */
export const described = (description: string, schema: Schema): Schema =>
  '$ref' in schema ? { description, ...schema } : { 'x-response-description': description, ...schema }

/**
 * The `response` of a route schema: its success, then every error it may answer (the
 * common ones, then `errors`, which may override them), each with the Error schema or
 * the one `errorSchema` names; an entry given as a schema is taken as it is.
 */
export function responses(
  success: Record<number, Schema>,
  errors: Readonly<Record<number, string | Schema>> = {},
  errorSchema: SharedSchema = 'Error',
): Record<number, Schema> {
  const all: Record<number, Schema> = { ...success }
  for (const [status, entry] of Object.entries({ ...common_errors, ...errors })) {
    all[Number(status)] = typeof entry === 'string' ? described(entry, ref(errorSchema)) : entry
  }
  return all
}
