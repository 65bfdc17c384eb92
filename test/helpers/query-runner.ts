import type { Test } from 'tap'
import { Engine } from '../../src/engine/index.js'
import type { Value } from '../../src/lang/ast.js'
import { Migrator } from '../../src/migration/index.js'
import { QueryRunner, type LoadedSchema, type QueryResult } from '../../src/query/index.js'
import { buildSchemaIR, fingerprint } from '../../src/schema/index.js'
import { Committer } from '../../src/txn/index.js'
import { tempDir } from './temp-dir.js'

export interface Runner {
  committer: Committer
  migrator: Migrator
  runner: QueryRunner
}

/**
 * A query runner over `engine` wired as a Database wires it, without the tenant
 * catalog: every commit through one committer, and each tenant migrated to `schema` on
 * first touch.
 */
export function openRunner(engine: Engine, schema: LoadedSchema): Runner {
  const committer = new Committer(engine)
  const migrator = new Migrator(committer, schema)
  const runner = new QueryRunner(committer, schema, { ready: (tenant) => migrator.ready(tenant), checkStatement: () => {}, limits: () => undefined })
  return { committer, migrator, runner }
}

export interface Harness {
  runner: QueryRunner
  committer: Committer
  engine: Engine
  dir: string
  /** Runs a query on tenant `default`. */
  q(text: string, params?: Record<string, Value>): Promise<QueryResult>
}

/** A real engine in a temp dir with `source` as its schema; closed when the test ends. */
export async function harness(t: Test, source: string, dir = tempDir(t)): Promise<Harness> {
  const ir = buildSchemaIR([{ name: 'schema.eel', source }])
  const engine = await Engine.open(dir)
  const { runner, committer } = openRunner(engine, { ir, fingerprint: await fingerprint(ir) })
  t.teardown(() => engine.close())
  return { runner, committer, engine, dir, q: (text, params = {}) => runner.run('default', text, params) }
}
