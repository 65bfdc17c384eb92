// Shared helpers of test/query-migration*.test.ts: open an Engine on a directory with a
// schema (the real restart path: close, reopen the same directory, a new committer,
// migrator and QueryRunner),
// run Eel, read results as records, and read the stored trees directly so a test can
// say what is (and is not) in the tenant's data beneath the query layer.
import type { Test } from 'tap'
import type { Value } from '../../src/lang/ast.js'
import { decodeKey, decodeRow } from '../../src/codec/index.js'
import { Engine } from '../../src/engine/index.js'
import type { Migrator } from '../../src/migration/index.js'
import { QueryError, type QueryRunner, type QueryResult } from '../../src/query/index.js'
import { buildSchemaIR, describeStep, fingerprint, planMigration, type SchemaIR } from '../../src/schema/index.js'
import { openRunner } from '../helpers/query-runner.js'

export type Row = Record<string, Value>

export interface Schema {
  ir: SchemaIR
  fingerprint: string
}

export async function schemaOf(source: string): Promise<Schema> {
  const ir = buildSchemaIR([{ name: 's.eel', source }])
  return { ir, fingerprint: await fingerprint(ir) }
}

/** The plan from one schema source to another, one line per step, or `{ blocked }`. */
export async function planned(from: string, to: string): Promise<string[] | { blocked: string }> {
  const plan = planMigration((await schemaOf(from)).ir, (await schemaOf(to)).ir)
  return plan.blocked === null ? plan.steps.map(describeStep) : { blocked: plan.blocked }
}

export class Db {
  readonly engine: Engine
  readonly runner: QueryRunner
  readonly migrator: Migrator

  private constructor(engine: Engine, schema: Schema) {
    this.engine = engine
    const { runner, migrator } = openRunner(engine, schema)
    this.runner = runner
    this.migrator = migrator
  }

  static async open(dir: string, source: string): Promise<Db> {
    const schema = await schemaOf(source)
    return new Db(await Engine.open(dir), schema)
  }

  run(tenant: string, text: string, params: Record<string, Value> = {}): Promise<QueryResult> {
    return this.runner.run(tenant, text, params)
  }

  /** The rows of a read as records keyed by column. */
  async rows(tenant: string, text: string, params: Record<string, Value> = {}): Promise<Row[]> {
    return records(await this.run(tenant, text, params))
  }

  /** The QueryError the query fails with (anything else is rethrown). */
  async error(tenant: string, text: string, params: Record<string, Value> = {}): Promise<QueryError> {
    const err = await this.run(tenant, text, params).then(
      () => new Error(`expected ${JSON.stringify(text)} to fail`),
      (e: unknown) => e,
    )
    if (!(err instanceof QueryError)) throw err
    return err
  }

  lsn(): number {
    return this.engine.stats().current_lsn
  }

  /** Every stored row of a collection, decoded, in primary-key order (below the query layer). */
  storedRows(tenant: string, collection: string): Row[] {
    return [...this.engine.snapshot().scan(`t/${tenant}/r/${collection}`)].map(([, value]) => decodeRow(value) as Row)
  }

  /** Every entry of an index tree, decoded (the index values, then the primary key). */
  indexEntries(tenant: string, collection: string, index: string): Value[][] {
    return [...this.engine.snapshot().scan(`t/${tenant}/x/${collection}/${index}`)].map(([key]) => decodeKey(key))
  }

  /** Names of the tenant's non-empty trees, sorted. */
  trees(tenant: string): string[] {
    return this.engine.snapshot().trees()
      .filter((tree) => tree.name.startsWith(`t/${tenant}/`) && tree.count > 0)
      .map((tree) => tree.name)
      .sort()
  }

  /** The tenant's stored meta entries (schema, fingerprint, auto ids) as text. */
  meta(tenant: string): Record<string, string> {
    return Object.fromEntries([...this.engine.snapshot().scan(`t/${tenant}/meta`)].map(([k, v]) => [k.toString('utf8'), v.toString('utf8')]))
  }

  async close(): Promise<void> {
    await this.engine.close()
  }
}

export function records(result: QueryResult): Row[] {
  return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i] ?? null])))
}

/**
 * Opens `dir` with `source`, runs `body`, and closes the engine whatever happens (the
 * next phase of the test reopens the same directory: the restart path).
 */
export async function phase<T>(dir: string, source: string, body: (db: Db) => Promise<T>): Promise<T> {
  const db = await Db.open(dir, source)
  try {
    return await body(db)
  } finally {
    await db.close()
  }
}

/**
 * Asserts the query fails with migration_blocked and `reason`, that blockedReason(tenant)
 * says the same, and returns the reason.
 */
export async function expectBlocked(t: Test, db: Db, tenant: string, text: string, reason: RegExp | string): Promise<string> {
  const err = await db.error(tenant, text)
  t.equal(err.code, 'migration_blocked', `${text}: fails with migration_blocked`)
  if (typeof reason === 'string') t.equal(err.message, reason, 'the blocked reason')
  else t.match(err.message, reason, 'the blocked reason')
  t.equal(db.migrator.blockedReason(tenant), err.message, 'blockedReason(tenant) says the same')
  return err.message
}
