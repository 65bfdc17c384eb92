// Request validation by the routes' JSON schemas (the same schemas the OpenAPI document
// is generated from: openapi.ts). Two Ajv instances, because the parts differ:
//   - path parameters, query strings and headers are text: an integer parameter is
//     coerced from its digits, and a parameter given twice arrives as an array and is
//     refused (only a one-element array is taken as its element);
//   - bodies are JSON as sent: nothing is coerced (`{"query": 1}` is not the text "1").
// A failed validation is a 400 `bad_request` whose sentence names the parameter or the
// body field and what it must be (schemaErrorFormatter); the server's error handler
// maps it like every other error.
import { Ajv, type ErrorObject, type Options } from 'ajv'
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify'
import { HttpError } from './errors.js'

const common: Options = {
  allErrors: false,
  // Errors carry the data and schema they are about: the sentences below quote them.
  verbose: true,
  strictSchema: true,
  strictNumbers: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
}

const text_parts = new Ajv({ ...common, coerceTypes: 'array', useDefaults: true })
const body_part = new Ajv({ ...common, coerceTypes: false, useDefaults: false })

/** fastify's validatorCompiler: one Ajv for the text parts, one for bodies. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? body_part : text_parts).compile(schema as object)

/** Which part of the request failed: body, headers, params or querystring. */
type SchemaErrorDataVar = Parameters<NonNullable<FastifyServerOptions['schemaErrorFormatter']>>[1]

type Failure = ErrorObject & { data?: unknown; parentSchema?: Record<string, unknown> }

/** fastify's schemaErrorFormatter: the first failure, as a sentence. */
export function schemaErrorFormatter(errors: readonly unknown[], part: SchemaErrorDataVar): Error {
  return new HttpError('bad_request', describeFailure(errors as readonly Failure[], part))
}

function describeFailure(errors: readonly Failure[], part: SchemaErrorDataVar): string {
  const failure = relevant(errors)
  const what = subject(failure.instancePath, part)
  const params = failure.params as Record<string, unknown>
  switch (failure.keyword) {
    case 'type': {
      if (part !== 'body' && Array.isArray(failure.data)) return `${what} may be given once`
      const types = String(params.type).split(',').map((type) => typeName(type, part === 'body' && failure.instancePath === ''))
      return `${what} must be ${types.join(' or ')}, got ${kindOf(failure.data)}`
    }
    case 'required':
      return part === 'body' ? `${what} needs "${String(params.missingProperty)}"` : `${String(params.missingProperty)} is required`
    case 'minimum':
      return `${what} must be at least ${String(params.limit)}, got ${String(failure.data)}`
    case 'maximum':
      return `${what} may be at most ${String(params.limit)}, got ${String(failure.data)}`
    case 'minLength':
      return params.limit === 1 ? `${what} may not be empty` : `${what} must be at least ${String(params.limit)} characters`
    case 'pattern':
      return `${what} must match ${String(params.pattern)}, got ${JSON.stringify(failure.data)}`
    case 'enum':
      return `${what} must be one of ${(params.allowedValues as unknown[]).join(', ')}, got ${JSON.stringify(failure.data)}`
    case 'oneOf':
      return oneOfSentence(failure, what)
    default:
      return `${what} ${failure.message ?? 'is not valid'}`
  }
}

type Branch = { type?: unknown; properties?: Record<string, { const?: unknown; enum?: unknown[] }> }

/**
 * The failure worth telling. A oneOf or anyOf reports every branch's failure; the
 * branches the data was meant for are those whose type it has and whose fixed-value
 * properties (the ops body's `op`) it matches, so only their failures are kept. When
 * it fits no branch, the failure is the type or the fixed value it got wrong. A oneOf
 * whose branches all fit (`query` or `text`) is reported itself.
 */
function relevant(errors: readonly Failure[]): Failure {
  let kept = [...errors]
  for (const alternative of errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')) {
    if (!kept.includes(alternative)) continue
    const branches = (Array.isArray(alternative.schema) ? alternative.schema : []) as Branch[]
    const meant = branches.flatMap((branch, i) => (fits(alternative.data, branch) ? [i] : []))
    if (meant.length === 0) return misfit(alternative, branches)
    if (meant.length === branches.length) continue
    const inside = `${alternative.schemaPath}/`
    kept = kept.filter((e) => e !== alternative && (!e.schemaPath.startsWith(inside) || meant.some((i) => e.schemaPath.startsWith(`${inside}${i}/`))))
  }
  const oneOfs = kept.filter((e) => e.keyword === 'oneOf')
  const first = kept.find((e) => !oneOfs.some((o) => o !== e && e.schemaPath.startsWith(`${o.schemaPath}/`))) ?? errors[0]
  if (first === undefined) throw new Error('validation failed without an error')
  return first
}

function fits(data: unknown, branch: Branch): boolean {
  if (typeof branch.type === 'string' && !hasType(data, branch.type)) return false
  for (const [name, property] of Object.entries(branch.properties ?? {})) {
    const allowed = property.enum ?? (property.const === undefined ? undefined : [property.const])
    if (allowed === undefined) continue
    const value = hasType(data, 'object') ? (data as Record<string, unknown>)[name] : undefined
    if (!allowed.includes(value)) return false
  }
  return true
}

/** The data fits no branch: the types they take, or the values their fixed property takes. */
function misfit(alternative: Failure, branches: readonly Branch[]): Failure {
  const types = [...new Set(branches.map((b) => b.type).filter((t): t is string => typeof t === 'string'))]
  if (types.length > 0 && !types.some((type) => hasType(alternative.data, type))) {
    return { ...alternative, keyword: 'type', params: { type: types.join(',') } }
  }
  const tag = Object.keys(branches[0]?.properties ?? {}).find((name) => branches.every((b) => {
    const property = b.properties?.[name]
    return property?.enum !== undefined || property?.const !== undefined
  }))
  if (tag === undefined) return alternative
  const value = (alternative.data as Record<string, unknown>)[tag]
  if (value === undefined) return { ...alternative, keyword: 'required', params: { missingProperty: tag } }
  const allowed = branches.flatMap((b) => b.properties?.[tag]?.enum ?? [b.properties?.[tag]?.const])
  return { ...alternative, keyword: 'enum', instancePath: `${alternative.instancePath}/${tag}`, data: value, params: { allowedValues: allowed } }
}

function hasType(data: unknown, type: string): boolean {
  switch (type) {
    case 'object': return data !== null && typeof data === 'object' && !Array.isArray(data)
    case 'array': return Array.isArray(data)
    case 'integer': return Number.isInteger(data)
    case 'null': return data === null
    default: return typeof data === type
  }
}

function subject(instancePath: string, part: SchemaErrorDataVar): string {
  const path = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (part === 'body') return path.length === 0 ? 'the body' : `"${path.join('.')}" in the body`
  if (path.length === 0) return part === 'querystring' ? 'the query string' : `the ${part}`
  return path.join('.')
}

/** A type in words; a whole body is "text" or "a JSON object". */
function typeName(type: string, wholeBody: boolean): string {
  if (wholeBody && type === 'object') return 'a JSON object'
  if (wholeBody && type === 'string') return 'text'
  return type === 'integer' || type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`
}

function kindOf(data: unknown): string {
  if (data === null || data === undefined) return 'nothing'
  if (Array.isArray(data)) return 'an array'
  if (typeof data === 'string') return JSON.stringify(data.length > 40 ? `${data.slice(0, 40)}…` : data)
  if (typeof data === 'object') return 'an object'
  return `${typeof data === 'number' ? 'the number' : typeof data} ${String(data)}`
}

/** A oneOf of required-only branches (`query` or `text`): name them. */
function oneOfSentence(failure: Failure, what: string): string {
  const branches = Array.isArray(failure.schema) ? (failure.schema as Array<{ required?: string[] }>) : []
  const names = branches.flatMap((b) => b.required ?? []).map((n) => `"${n}"`)
  const matched = (failure.params as { passingSchemas?: unknown }).passingSchemas
  if (names.length === 0) return `${what} must match exactly one of its forms`
  return matched === null || matched === undefined ? `${what} needs ${names.join(' or ')}` : `${what} may give ${names.join(' or ')}, not both`
}
