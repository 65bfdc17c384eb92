// Where `tenantdb query` runs statements: a directory opened embedded (this file) or a
// running server (query-remote.ts), behind one interface, so the one-shot command and
// the shell do the same against either, and print the same results (JSON values: a
// timestamp is its ISO-8601 string in both).
import { Database, EngineError } from '../database/index.js'
import type { Value } from '../lang/ast.js'
import { SchemaError, SchemaReadError, schemaText } from '../schema/index.js'
import { requireDatabaseDir } from './database-dir.js'
import { HeldError } from './held-error.js'
import { createDatabase, isNewDirectory } from './query-create.js'
import { StatementFailure } from './query-failure.js'
import { UsageError } from './usage-error.js'

/** A query's result (docs/api.md, "Queries"), as JSON. */
export interface RowsResult {
  columns: string[]
  rows: Value[][]
  lsn?: number
  truncated?: boolean
  [more: string]: unknown
}

/** A query's result or a tenant operation's. */
export type StatementResult = RowsResult | { ok: true; message: string }

export interface TenantSummary {
  name: string
  state: string
  /** The tenant it was forked from, at which LSN (docs/api.md, "Tenants"). */
  parent: { tenant: string; snapshot: string | null; lsn: number } | null
}

export interface CollectionSummary {
  name: string
  rows: number
  indexes: string[]
}

export interface QueryTarget {
  /** What the shell's greeting names: the directory, or the server's API URL. */
  readonly where: string
  /** The tenant statements run on. */
  readonly tenant: string
  /** Runs one statement (a query, or a `tenant …` operation); a failure is a StatementFailure. */
  run(text: string, params: Record<string, Value>): Promise<StatementResult>
  tenants(): Promise<TenantSummary[]>
  collections(): Promise<CollectionSummary[]>
  /** The schema statements run against, as schema text with a comment saying where it comes from. */
  schema(): Promise<string>
  /** Runs later statements on `tenant` (it must exist). */
  useTenant(tenant: string): Promise<void>
  close(): Promise<void>
}

/**
 * A directory opened embedded. With schema files the tenant migrates lazily as under
 * `serve`, and a new directory (absent or empty) is created first (query-create.ts);
 * without, it is opened at the schema the tenant was last migrated to and nothing
 * migrates (docs/language.md, "Lazy migration").
 */
export class EmbeddedTarget implements QueryTarget {
  readonly where: string
  #tenant: string
  #db: Database
  readonly #schema: string[]

  private constructor(dir: string, schema: string[], tenant: string, db: Database) {
    this.where = dir
    this.#schema = schema
    this.#tenant = tenant
    this.#db = db
  }

  static async open(dir: string, schema: string[], tenant: string): Promise<EmbeddedTarget> {
    return new EmbeddedTarget(dir, schema, tenant, await openDirectory(dir, schema, tenant))
  }

  get tenant(): string {
    return this.#tenant
  }

  async run(text: string, params: Record<string, Value>): Promise<StatementResult> {
    try {
      return asJson(await this.#db.run(text, params, { tenant: this.#tenant })) as StatementResult
    } catch (err) {
      throw StatementFailure.of(err)
    }
  }

  async tenants(): Promise<TenantSummary[]> {
    return this.#db.tenants().tenants
  }

  async collections(): Promise<CollectionSummary[]> {
    try {
      return (await this.#db.tenant(this.#tenant).collections()).collections
    } catch (err) {
      throw StatementFailure.of(err)
    }
  }

  async schema(): Promise<string> {
    const { files, ir, fingerprint } = this.#db.schema
    if (this.#schema.length > 0) return files.map((f) => `# file: ${f.name}\n${f.source.endsWith('\n') ? f.source : `${f.source}\n`}`).join('')
    const source = ir.collections.length + ir.queries.length === 0 ? 'no schema: it was never migrated' : `the schema it was last migrated to (${fingerprint})`
    return `# tenant ${this.#tenant}: ${source}; nothing is migrated (--schema FILE to migrate)\n${schemaText(ir)}`
  }

  async useTenant(tenant: string): Promise<void> {
    try {
      this.#db.tenant(tenant).schema()
    } catch (err) {
      throw StatementFailure.of(err)
    }
    // At the schema files, any tenant; at a tenant's applied schema, reopened at the new one's.
    if (this.#schema.length === 0) {
      await this.#db.close()
      this.#db = await openDirectory(this.where, [], tenant)
    }
    this.#tenant = tenant
  }

  async close(): Promise<void> {
    await this.#db.close()
  }
}

async function openDirectory(dir: string, schema: string[], tenant: string): Promise<Database> {
  const create = schema.length > 0 && isNewDirectory(dir)
  if (!create) requireDatabaseDir(dir)
  try {
    if (create) {
      await createDatabase(dir, schema)
      process.stderr.write(`tenantdb: created a database in ${dir} with the schema ${schema.join(', ')}\n`)
    }
    return await Database.open(dir, schema.length > 0 ? { schema } : { appliedSchemaOf: tenant })
  } catch (err) {
    if (err instanceof SchemaReadError || err instanceof SchemaError) throw new UsageError(err.message)
    if (err instanceof EngineError && err.code === 'locked') {
      throw new HeldError(`${err.message}; to query the server that holds it: tenantdb query --url URL (the address it printed, e.g. http://127.0.0.1:7070; the token from --token or SERVICE_TOKEN)`)
    }
    throw err
  }
}

/** Values as JSON carries them: a timestamp as its ISO-8601 string, as the server sends it. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value))
}
