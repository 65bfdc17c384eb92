import type { Test } from 'tap'
import { Engine } from '../../src/engine/index.js'
import type { Value } from '../../src/lang/ast.js'
import { QueryRunner, type QueryResult } from '../../src/query/index.js'
import { buildSchemaIR, fingerprint } from '../../src/schema/index.js'
import { tempDir } from './temp-dir.js'

export interface Harness {
  runner: QueryRunner
  engine: Engine
  dir: string
  /** Runs a query on tenant `default`. */
  q(text: string, params?: Record<string, Value>): Promise<QueryResult>
}

/** A real engine in a temp dir with `source` as its schema; closed when the test ends. */
export async function harness(t: Test, source: string, dir = tempDir(t)): Promise<Harness> {
  const ir = buildSchemaIR([{ name: 'schema.eel', source }])
  const engine = await Engine.open(dir)
  const runner = new QueryRunner(engine, { ir, fingerprint: await fingerprint(ir) })
  t.teardown(() => engine.close())
  return { runner, engine, dir, q: (text, params = {}) => runner.run('default', text, params) }
}
