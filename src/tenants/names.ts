import { TenantError } from './errors.js'

/** Tenant and snapshot names (docs/api.md): safe in paths, tree names and URLs. */
export const name_pattern = /^[a-z0-9][a-z0-9_-]{0,62}$/

export const default_tenant = 'default'

export function checkName(name: unknown, what: 'tenant' | 'snapshot'): string {
  if (typeof name !== 'string' || !name_pattern.test(name)) {
    throw new TenantError('bad_request', `${what} names are 1 to 63 of a-z, 0-9, _ and -, starting with a letter or digit; got ${JSON.stringify(name)}`)
  }
  return name
}

/** The engine pin that holds snapshot `snapshot` of `tenant`. */
export const pinName = (tenant: string, snapshot: string) => `${tenant}@${snapshot}`

/** `acme` or `acme@before`, each part a valid name. */
export function splitSource(source: string): [string, string | null] {
  const at = source.indexOf('@')
  if (at === -1) return [checkName(source, 'tenant'), null]
  return [checkName(source.slice(0, at), 'tenant'), checkName(source.slice(at + 1), 'snapshot')]
}
