// Parsing of path and query-string parameters shared by the routes; a malformed one
// is a 400 `bad_request` naming the parameter.
import type { FastifyRequest } from 'fastify'
import { query_int_param_max } from '../../limits.js'
import { HttpError } from '../errors.js'

export type Query = Record<string, string | string[] | undefined>

export function queryOf(request: FastifyRequest): Query {
  return (request.query ?? {}) as Query
}

export function tenantOf(request: FastifyRequest): string {
  return (request.params as { tenant: string }).tenant
}

/** A single string parameter, or undefined when absent. */
export function stringParam(query: Query, name: string): string | undefined {
  const value = query[name]
  if (Array.isArray(value)) throw new HttpError('bad_request', `${name} may be given once`)
  return value
}

/** A non-negative integer parameter of at most `max` (query_int_param_max), or undefined when absent. */
export function intParam(query: Query, name: string, max = query_int_param_max): number | undefined {
  const text = stringParam(query, name)
  if (text === undefined) return undefined
  const value = Number(text)
  if (!/^\d+$/.test(text) || !(value <= query_int_param_max)) {
    throw new HttpError('bad_request', `${name} must be a non-negative integer of at most ${query_int_param_max}, got ${JSON.stringify(text.slice(0, 40))}`)
  }
  if (value > max) throw new HttpError('bad_request', `${name} may be at most ${max}, got ${value}`)
  return value
}
