// `tenantdb serve`: open the directory (taking its lock), resolve the token, listen,
// and shut down cleanly on SIGTERM/SIGINT.
import { resolveToken, type ResolvedToken } from '../config/token.js'
import { Engine } from '../engine/index.js'
import { buildServer } from '../http/index.js'
import { QueryError, QueryRunner } from '../query/index.js'
import { tenantsWithData } from '../query/layout.js'
import { loadSchema, SchemaError, SchemaReadError, type LoadedSchema } from '../schema/index.js'
import { shutdown_grace_ms } from '../limits.js'
import { version } from '../version.js'
import { parseServeOptions } from './serve-options.js'
import { UsageError } from './usage-error.js'

export async function serve(argv: string[]): Promise<void> {
  const options = parseServeOptions(argv, process.env)
  const schema = await readSchema(options.schema)
  const engine = await Engine.open(options.dir)
  try {
    const dbDir = engine.stats().db_dir
    const runner = new QueryRunner(engine, schema)
    const token = await resolveToken({ flag: options.token, env: process.env.SERVICE_TOKEN, dir: dbDir })
    const app = await buildServer({ token: token.token, schema: schema.files, logger: { level: process.env.LOG_LEVEL ?? 'info' } })
    await migrateAtStart(runner, (tenant, reason) => app.log.warn({ tenant, reason }, 'migration blocked'))
    await app.listen({ host: options.host, port: options.port })
    const address = app.server.address()
    const port = typeof address === 'object' && address !== null ? address.port : options.port
    const host = options.host.includes(':') ? `[${options.host}]` : options.host
    process.stdout.write(`tenantdb ${version} serving ${dbDir}\n  url: http://${host}:${port}/api/v1\n`)
    process.stderr.write(tokenBanner(token))

    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      app.log.info({ signal }, 'shutting down')
      const force = setTimeout(() => process.exit(1), shutdown_grace_ms)
      force.unref()
      app.close()
        .then(() => engine.close())
        .then(() => process.exit(0), (err: unknown) => {
          process.stderr.write(`tenantdb: shutdown failed: ${(err as Error).message}\n`)
          process.exit(1)
        })
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  } catch (err) {
    await engine.close()
    throw err
  }
}

function tokenBanner(token: ResolvedToken): string {
  const lines = []
  if (token.source === 'generated') lines.push(`  token: ${token.token}  (generated, saved to ${token.file})`)
  else if (token.source === 'file') lines.push(`  token: read from ${token.file}`)
  else lines.push(`  token: from ${token.source === 'flag' ? '--token' : 'SERVICE_TOKEN'}`)
  if (token.warning !== undefined) lines.push(`  warning: ${token.warning}`)
  return `${lines.join('\n')}\n`
}

async function readSchema(paths: string[]): Promise<LoadedSchema> {
  try {
    return await loadSchema(paths)
  } catch (err) {
    if (err instanceof SchemaReadError || err instanceof SchemaError) throw new UsageError(err.message)
    throw err
  }
}

/**
 * Brings every tenant with data to the loaded schema, so a blocked migration is
 * logged at start for every tenant it affects (docs/language.md), not first met by a
 * query.
 */
async function migrateAtStart(runner: QueryRunner, blocked: (tenant: string, reason: string) => void): Promise<void> {
  const tenants = new Set(['default', ...tenantsWithData(runner.engine.snapshot())])
  for (const tenant of tenants) {
    try {
      await runner.ensureMigrated(tenant)
    } catch (err) {
      if (!(err instanceof QueryError) || err.code !== 'migration_blocked') throw err
      blocked(tenant, err.message)
    }
  }
}
