// The arguments of `tenantdb query` (docs/operations.md, "Querying from the command
// line"): the database (DIR, or --url / TENANTDB_URL), the tenant, the parameters, the
// output format, and the statement (an argument, `-` for stdin, or none).
import { parseArgs } from 'node:util'
import type { Value } from '../lang/ast.js'
import { checkName, default_tenant } from '../tenants/names.js'
import { envValue, flagList } from './env.js'
import { serverAt, type Server } from './server-client.js'
import { UsageError } from './usage-error.js'

export type OutputFormat = 'table' | 'json' | 'csv'

export const output_formats: readonly OutputFormat[] = ['table', 'json', 'csv']

export interface QueryOptions {
  /** Where the statements run: a directory opened embedded, or a running server. */
  target: { dir: string; schema: string[] } | { server: Server }
  tenant: string
  params: Record<string, Value>
  /** Given by --format; otherwise table on a terminal, JSON elsewhere. */
  format: OutputFormat | undefined
  /** The statement argument: text, `-` (stdin), or none. */
  statement: string | undefined
}

const synopsis = 'tenantdb query (DIR [--schema FILE]... | --url URL [--token TOKEN]) [--tenant T] [--params JSON] [--format table|json|csv] [STATEMENT | -]'

export function parseQueryOptions(argv: string[], env: NodeJS.ProcessEnv): QueryOptions {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        schema: { type: 'string', multiple: true, default: [] },
        tenant: { type: 'string' },
        params: { type: 'string' },
        format: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const { values, positionals } = parsed
  // While TENANTDB_URL is set, a lone argument is the statement; DIR and a statement open DIR.
  const url = values.url ?? (positionals.length < 2 ? envValue(env, 'TENANTDB_URL') : undefined)
  const [dir, statement] = url === undefined ? positionals : [undefined, ...positionals]
  if (url === undefined && dir === undefined) throw new UsageError(`missing DIR (or --url); expected: ${synopsis}`)
  if (positionals.length > 2 || (url !== undefined && positionals.length > 1)) {
    throw new UsageError(`too many arguments (quote the statement as one argument); expected: ${synopsis}`)
  }
  if (dir === '' || statement === '') throw new UsageError(`an empty argument; expected: ${synopsis}`)
  if (url !== undefined && values.schema.length > 0) throw new UsageError('--schema goes with DIR: a server queries with the schema it was started with')
  if (url === undefined && values.token !== undefined) throw new UsageError('--token goes with --url')
  return {
    target: url === undefined ? { dir: dir as string, schema: flagList(values.schema, env, 'TENANTDB_SCHEMA', ':') } : { server: serverAt(url, values.token, env) },
    tenant: tenantName(values.tenant ?? envValue(env, 'TENANTDB_TENANT') ?? default_tenant),
    params: parseParams(values.params),
    format: parseFormat(values.format),
    statement,
  }
}

function tenantName(name: string): string {
  try {
    return checkName(name, 'tenant')
  } catch (err) {
    throw new UsageError(`--tenant: ${(err as Error).message}`)
  }
}

function parseParams(text: string | undefined): Record<string, Value> {
  if (text === undefined) return {}
  let params: unknown
  try {
    params = JSON.parse(text)
  } catch (err) {
    throw new UsageError(`--params must be a JSON object, like '{"min": 30}': ${(err as Error).message}`)
  }
  if (params === null || typeof params !== 'object' || Array.isArray(params)) throw new UsageError(`--params must be a JSON object, like '{"min": 30}', got ${text}`)
  return params as Record<string, Value>
}

export function parseFormat(text: string | undefined): OutputFormat | undefined {
  if (text === undefined) return undefined
  const format = output_formats.find((f) => f === text)
  if (format === undefined) throw new UsageError(`--format must be one of ${output_formats.join(', ')}, got '${text}'`)
  return format
}
