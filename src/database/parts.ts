// What an open database is made of. Database and Tenant hold it privately: the
// embedding API is their methods, and nothing outside src/database reaches these parts
// (test and benchmark code through internals.ts only).
import type { CommitNotifier } from '../cdc/index.js'
import type { Engine } from '../engine/index.js'
import type { Migrator } from '../migration/index.js'
import type { QueryRunner } from '../query/index.js'
import type { LoadedSchema } from '../schema/index.js'
import type { TenantOpContext } from '../tenants/index.js'
import type { Committer } from '../txn/index.js'

export interface DatabaseParts {
  engine: Engine
  /** Every commit goes through it (queries, migrations, tenant operations). */
  committer: Committer
  runner: QueryRunner
  migrator: Migrator
  /** Follows the committer; wakes the change tail. */
  notifier: CommitNotifier
  schema: LoadedSchema
  query_time_ms_max: number
  /** What tenant operations work with (Database.ops; a tenant token's operations, access-tokens.ts). */
  ops: TenantOpContext
}
