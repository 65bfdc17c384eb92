// A database opened in this process through the client's interface (docs/client.md,
// "Connecting"): `connect({path, schema})`. Node-only (it loads the storage core's
// native binding), so connect.ts loads this file with an import bundlers do not follow.
import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import { AccessTokens, Database } from '../database/index.js'
import { concatSchemaSources } from '../http/routes/schema-source.js'
import type { TenantOpRequest } from '../tenants/index.js'
import { mapped } from './embedded-errors.js'
import { EmbeddedTenant } from './embedded-tenant.js'
import { refused } from './refusal.js'
import type {
  Access, BackupStream, CallOptions, Client, ClientTenant, Health, HealthDetail, OpRequest, OpResult, Stats, TenantEntry, Trends, TrendsOptions,
} from './types.js'

export class EmbeddedClient implements Client {
  readonly #db: Database

  constructor(db: Database) {
    this.#db = db
  }

  tenant(name: string): ClientTenant {
    return new EmbeddedTenant(this.#db.tenant(name), this)
  }

  tenants(options: CallOptions = {}): Promise<{ tenants: TenantEntry[] }> {
    return mapped(false, options.signal, () => this.#db.tenants() as unknown as { tenants: TenantEntry[] })
  }

  health(options: CallOptions = {}): Promise<Health> {
    return mapped(false, options.signal, () => this.#db.health())
  }

  healthDetail(options: CallOptions = {}): Promise<HealthDetail> {
    return mapped(false, options.signal, () => this.#db.healthDetail() as unknown as HealthDetail)
  }

  stats(options: CallOptions = {}): Promise<Stats> {
    return mapped(false, options.signal, () => this.#db.stats() as unknown as Stats)
  }

  /** The files this database was opened with, as a server started with them serves them. */
  schemaSource(options: CallOptions = {}): Promise<string> {
    return mapped(false, options.signal, () => concatSchemaSources(this.#db.schema.files))
  }

  /** The database's own online backup (Database.backup), its Node stream as a web stream. */
  backup(options: CallOptions = {}): Promise<BackupStream> {
    return mapped(false, options.signal, async () => {
      const archive = await this.#db.backup()
      const body = Readable.toWeb(archive.stream) as NodeReadableStream<Uint8Array> as unknown as ReadableStream<Uint8Array>
      return { lsn: archive.lsn, bytes: archive.bytes, body }
    })
  }

  /** The process holds the database itself: what a service token opens, everything. */
  access(options: CallOptions = {}): Promise<Access> {
    return mapped(false, options.signal, () => ({ credential: 'service' }) as Access)
  }

  /** The trend ring is the server's (src/http/), sampled while it serves: a database opened here keeps none. */
  async trends(_options: TrendsOptions = {}): Promise<Trends> {
    throw refused('not_allowed_here', 'trends are sampled by a running server (GET /api/v1/trends); a database opened in this process keeps none')
  }

  /** The token store of this database (tokens live in its catalog). */
  get accessTokens(): AccessTokens {
    return AccessTokens.of(this.#db)
  }

  /** Checked by db.ops itself (the one check of an operation's shape). */
  ops(request: OpRequest, options: CallOptions = {}): Promise<OpResult> {
    return mapped(false, options.signal, () => this.#db.ops(request as TenantOpRequest) as Promise<OpResult>)
  }

  async close(): Promise<void> {
    await mapped(false, undefined, () => this.#db.close())
  }
}

/** Opens the database directory at `path` with the schema files given. */
export async function openEmbedded(path: string, schema: readonly string[]): Promise<EmbeddedClient> {
  return new EmbeddedClient(await mapped(false, undefined, () => Database.open(path, { schema: [...schema] })))
}
