// `tenantdb token create|list|revoke` (docs/operations.md, "Tenant tokens"): a
// tenant's tokens, through a running server (--url, with the service token) or in a
// directory no server holds (it takes the directory's lock; a running server makes it
// exit 2). `create` prints the token alone on stdout, so a script can take it
// (`TOKEN=$(tenantdb token create …)`); it is never shown again.
import { parseArgs } from 'node:util'
import type { IssuedToken, IssueRequest, TokenListing } from '../database/index.js'
import { token_scopes } from '../tenants/token-scopes.js'
import { requireDatabaseDir } from './database-dir.js'
import { envValue } from './env.js'
import { TenantdbError, type Client } from '../client/index.js'
import { clientOf, reached, serverAt } from './server-client.js'
import { UsageError } from './usage-error.js'
import { command_help, type CommandHelp } from './usage.js'

const subcommands = ['create', 'list', 'revoke'] as const
type Subcommand = typeof subcommands[number]

/** Where the tokens are: a server, or a directory. */
interface Target {
  issue(tenant: string, request: IssueRequest): Promise<IssuedToken>
  list(tenant: string): Promise<TokenListing[]>
  revoke(tenant: string, id: string): Promise<void>
  close(): Promise<void>
}

export async function token(argv: string[]): Promise<void> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write((command_help.token as CommandHelp).text)
    if (argv.length === 0) process.exitCode = 2
    return
  }
  const [sub, ...rest] = argv
  if (!(subcommands as readonly string[]).includes(sub as string)) throw new UsageError(`unknown token command '${sub}'; expected create, list or revoke (tenantdb token --help)`)
  const args = parse(sub as Subcommand, rest)
  const target = args.url !== undefined ? server(args.url, args.token) : await directory(args.dir as string)
  try {
    await run(sub as Subcommand, target, args)
  } finally {
    await target.close()
  }
}

interface Args {
  url?: string
  token?: string
  dir?: string
  tenant: string
  id?: string
  scope?: string
  name?: string
  expiresIn?: number
  json: boolean
}

function parse(sub: Subcommand, argv: string[]): Args {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' }, token: { type: 'string' },
        scope: { type: 'string' }, name: { type: 'string' }, 'expires-in': { type: 'string' }, json: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: true,
    })
  } catch (err) {
    throw new UsageError(`${(err as Error).message} (tenantdb token --help)`)
  }
  const { values, positionals } = parsed
  const only = (option: string, subs: readonly Subcommand[]) => {
    if ((values as Record<string, unknown>)[option] !== undefined && !subs.includes(sub)) throw new UsageError(`--${option} goes with token ${subs.join(' or ')}`)
  }
  only('scope', ['create'])
  only('name', ['create'])
  only('expires-in', ['create'])
  only('json', ['list'])
  // TENANTDB_URL stands for --url when the arguments name no directory (docs/operations.md,
  // "Flags and environment variables").
  const lone = sub === 'revoke' ? 2 : 1
  const url = values.url ?? (positionals.length === lone ? envValue(process.env, 'TENANTDB_URL') : undefined)
  if (url === undefined && values.token !== undefined) throw new UsageError('--token goes with --url')
  const wanted = (url === undefined ? 1 : 0) + lone
  if (positionals.length !== wanted || positionals.some((p) => p === '')) {
    const synopsis = `tenantdb token ${sub} (--url URL | DIR) TENANT${sub === 'revoke' ? ' ID' : ''}`
    throw new UsageError(`${positionals.length < wanted ? 'missing' : 'too many'} arguments; expected: ${synopsis}`)
  }
  const [first, second, third] = positionals as [string, string | undefined, string | undefined]
  const [dir, tenant, id] = url === undefined ? [first, second as string, third] : [undefined, first, second]
  if (sub === 'create' && !(token_scopes as readonly string[]).includes(values.scope ?? '')) {
    throw new UsageError(`token create needs --scope read, write or admin${values.scope === undefined ? '' : `, got ${JSON.stringify(values.scope)}`}`)
  }
  let expiresIn: number | undefined
  if (values['expires-in'] !== undefined) {
    expiresIn = Number(values['expires-in'])
    if (!/^\d+$/.test(values['expires-in']) || !Number.isSafeInteger(expiresIn)) throw new UsageError(`--expires-in takes a number of seconds, got ${JSON.stringify(values['expires-in'])}`)
  }
  return {
    ...(url === undefined ? { dir: dir as string } : { url }),
    ...(values.token === undefined ? {} : { token: values.token }),
    tenant,
    ...(id === undefined ? {} : { id }),
    ...(values.scope === undefined ? {} : { scope: values.scope }),
    ...(values.name === undefined ? {} : { name: values.name }),
    ...(expiresIn === undefined ? {} : { expiresIn }),
    json: values.json === true,
  }
}

async function run(sub: Subcommand, target: Target, args: Args): Promise<void> {
  switch (sub) {
    case 'create': {
      const issued = await target.issue(args.tenant, {
        scope: args.scope as IssueRequest['scope'],
        ...(args.name === undefined ? {} : { name: args.name }),
        ...(args.expiresIn === undefined ? {} : { expires_in_s: args.expiresIn }),
      })
      process.stdout.write(`${issued.token}\n`)
      process.stderr.write(`issued ${issued.scope} token ${issued.id} for ${issued.tenant}${issued.expires_at === null ? '' : `, expires ${issued.expires_at}`}; it is shown only this once\n`)
      return
    }
    case 'list': {
      const tokens = await target.list(args.tenant)
      if (args.json) {
        process.stdout.write(`${JSON.stringify(tokens)}\n`)
        return
      }
      process.stdout.write(table(tokens))
      return
    }
    case 'revoke':
      await target.revoke(args.tenant, args.id as string)
      process.stdout.write(`revoked token ${args.id as string} of ${args.tenant}\n`)
  }
}

function table(tokens: readonly TokenListing[]): string {
  const rows = [['ID', 'SCOPE', 'TENANT', 'NAME', 'CREATED', 'EXPIRES', 'LAST USED'],
    ...tokens.map((x) => [x.id, x.scope, x.tenant, x.name ?? '-', x.created_at, x.expires_at ?? 'never', x.last_used_at ?? 'never'])]
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? []
  return rows.map((row) => `${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}\n`).join('')
}

async function directory(dir: string): Promise<Target> {
  requireDatabaseDir(dir)
  const { AccessTokens, Database } = await import('../database/index.js')
  // No schema: tokens live in the catalog, and nothing here migrates a tenant.
  const db = await Database.open(dir)
  const tokens = AccessTokens.of(db)
  return {
    issue: (tenant, request) => tokens.issue(tenant, request),
    list: async (tenant) => tokens.list(tenant),
    revoke: (tenant, id) => tokens.revoke(tenant, id),
    close: async () => { await db.close() },
  }
}

function server(url: string, serviceToken: string | undefined): Target {
  const at = serverAt(url, serviceToken, process.env)
  const client = clientOf(at)
  const call = async <T>(fn: (client: Client) => Promise<T>): Promise<T> => {
    try {
      return await reached(at, async () => fn(await client))
    } catch (err) {
      if (err instanceof TenantdbError && err.status !== undefined) throw new Error(`the server refused (${err.status}): ${err.message}`, { cause: err })
      throw err
    }
  }
  return {
    issue: (tenant, request) => call((c) => c.tenant(tenant).issueToken(request)),
    list: async (tenant) => (await call((c) => c.tenant(tenant).tokens())).tokens,
    revoke: async (tenant, id) => { await call((c) => c.tenant(tenant).revokeToken(id)) },
    close: async () => {},
  }
}
